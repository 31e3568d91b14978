/**
 * What one completed model call adds to the usage the chart keeps: a response's tokens, priced,
 * summed into the turn's and the session's totals.
 */
import type { AgentAction } from './actions.js';
import type { AgentContext } from './context.js';
import type { LlmResponse } from './messages.js';
import { addCall, costOf, priceOf, tokensOf } from './usage.js';

/**
 * What a completed model call used and cost, added to the turn's and the session's sums, and the
 * `UsageReported` that says so.
 *
 * @example
 * const { usage, turn, reported } = callUsage(context, event.response);
 */
export function callUsage(context: AgentContext, response: LlmResponse) {
  const { config } = context;
  const model = response.model ?? config.model;
  const tokens = tokensOf(response.usage);
  // A dated or unknown id the table lacks is priced as the configured model, when that has one.
  const costUsd = costOf(
    tokens,
    priceOf(model, config.prices) ?? priceOf(config.model, config.prices),
  );
  const usage = addCall(context.usage, tokens, costUsd);
  const turn = { ...context.turn, usage: addCall(context.turn.usage, tokens, costUsd) };
  const reported: AgentAction = {
    type: 'UsageReported',
    model,
    call: { ...tokens, costUsd },
    turn: turn.usage,
    session: usage,
  };
  return { tokens, usage, turn, reported };
}
