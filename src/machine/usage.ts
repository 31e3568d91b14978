/**
 * What the model calls use and cost: token counts per call, per turn and per session, priced
 * from a table of the Claude models' list prices that a user can extend or override. The chart
 * keeps the sums in its context, so a stored session, a replay and every listener see the same
 * figures, and its limits (`maxTurns`, `maxBudgetUsd`) read them.
 */
import type { Usage } from './messages.js';

/**
 * The tokens of one model call, or a sum of them, as the Messages API counts them: input
 * read at the full price, output, input written to the prompt cache, input read from it.
 *
 * @example
 * const tokens: TokenUsage = { input_tokens: 12, output_tokens: 340, cache_creation_input_tokens: 0, cache_read_input_tokens: 8200 };
 */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/**
 * Sums over several model calls (a turn, a session): their tokens, how many calls completed,
 * and what they cost in US dollars — `null` when a call's model has no price.
 *
 * @example
 * agent.usage.session.costUsd; // 0.0412
 */
export interface UsageTotals extends TokenUsage {
  /** Model calls that completed. */
  calls: number;
  /** Their cost in US dollars; `null` once a call's model had no price in the table. */
  costUsd: number | null;
}

/**
 * The list price of a model, in US dollars per million tokens. Cache writes are priced for the
 * default five-minute cache.
 *
 * @example
 * const price: ModelPrice = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
 */
export interface ModelPrice {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

/** A price from input and output, with the API's cache multipliers (×1.25 write, ×0.1 read). */
function listPrice(input: number, output: number): ModelPrice {
  return { input, output, cacheWrite: input * 1.25, cacheRead: input / 10 };
}

/**
 * The list prices the package knows, by model id (a dated id such as
 * `claude-sonnet-4-5-20250929` takes the price of the longest id here it starts with). As
 * published by Anthropic on 2026-03-21; `pricing` in the config adds models or overrides these.
 *
 * @example
 * DEFAULT_PRICES['claude-sonnet-4-5']; // { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 }
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  'claude-opus-4-6': listPrice(5, 25),
  'claude-sonnet-4-6': listPrice(3, 15),
  'claude-opus-4-5': listPrice(5, 25),
  'claude-sonnet-4-5': listPrice(3, 15),
  'claude-haiku-4-5': listPrice(1, 5),
  'claude-opus-4-1': listPrice(15, 75),
  'claude-opus-4': listPrice(15, 75),
  'claude-sonnet-4': listPrice(3, 15),
  'claude-3-7-sonnet': listPrice(3, 15),
  'claude-3-5-haiku': listPrice(0.8, 4),
  'claude-3-haiku': listPrice(0.25, 1.25),
});

/** Nothing used yet. */
export const NO_USAGE: UsageTotals = Object.freeze({
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  calls: 0,
  costUsd: 0,
});

/**
 * The price of `model` in `prices`: its own, or that of the longest id it starts with (dated ids
 * and aliases); `null` when none fits.
 *
 * @example
 * priceOf('claude-sonnet-4-5-20250929', DEFAULT_PRICES); // the price of 'claude-sonnet-4-5'
 */
export function priceOf(
  model: string,
  prices: Readonly<Record<string, ModelPrice>>,
): ModelPrice | null {
  const own = prices[model];
  if (own !== undefined) return own;
  let best: string | undefined;
  for (const id of Object.keys(prices)) {
    if (model.startsWith(`${id}-`) && (best === undefined || id.length > best.length)) best = id;
  }
  return best === undefined ? null : prices[best]!;
}

/**
 * The tokens of one call from the `usage` the API reported (fields it left out count 0).
 *
 * @example
 * tokensOf({ input_tokens: 10, output_tokens: 5 }); // { input_tokens: 10, output_tokens: 5, cache_…: 0, … }
 */
export function tokensOf(usage: Usage | undefined): TokenUsage {
  return {
    input_tokens: usage?.input_tokens ?? 0,
    output_tokens: usage?.output_tokens ?? 0,
    cache_creation_input_tokens: countOf(usage?.cache_creation_input_tokens),
    cache_read_input_tokens: countOf(usage?.cache_read_input_tokens),
  };
}

/**
 * Every input token of a call, read at the full price, written to the cache or read from it:
 * how much of the context window its request took.
 *
 * @example
 * inputTokensOf({ input_tokens: 12, output_tokens: 340, cache_creation_input_tokens: 0, cache_read_input_tokens: 8200 }); // 8212
 */
export function inputTokensOf(tokens: TokenUsage): number {
  return tokens.input_tokens + tokens.cache_creation_input_tokens + tokens.cache_read_input_tokens;
}

/**
 * What `tokens` cost at `price`, in US dollars; `null` without a price.
 *
 * @example
 * costOf({ input_tokens: 1e6, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, listPrice(3, 15)); // 3
 */
export function costOf(tokens: TokenUsage, price: ModelPrice | null): number | null {
  if (price === null) return null;
  return (
    (tokens.input_tokens * price.input +
      tokens.output_tokens * price.output +
      tokens.cache_creation_input_tokens * price.cacheWrite +
      tokens.cache_read_input_tokens * price.cacheRead) /
    1_000_000
  );
}

/**
 * `totals` with one more completed call added.
 *
 * @example
 * const session = addCall(context.usage, tokens, cost);
 */
export function addCall(
  totals: UsageTotals,
  tokens: TokenUsage,
  costUsd: number | null,
): UsageTotals {
  return { ...addUsage(totals, tokens, costUsd), calls: totals.calls + 1 };
}

/**
 * `totals` with what other model calls used and cost added, without counting them as this
 * agent's calls (a subagent's, rolled up into its parent's).
 *
 * @example
 * addUsage(core.context.usage, childUsage, childUsage.costUsd);
 */
export function addUsage(
  totals: UsageTotals,
  tokens: TokenUsage,
  costUsd: number | null,
): UsageTotals {
  return {
    input_tokens: totals.input_tokens + tokens.input_tokens,
    output_tokens: totals.output_tokens + tokens.output_tokens,
    cache_creation_input_tokens:
      totals.cache_creation_input_tokens + tokens.cache_creation_input_tokens,
    cache_read_input_tokens: totals.cache_read_input_tokens + tokens.cache_read_input_tokens,
    calls: totals.calls,
    costUsd: totals.costUsd === null || costUsd === null ? null : totals.costUsd + costUsd,
  };
}

function countOf(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0;
}
