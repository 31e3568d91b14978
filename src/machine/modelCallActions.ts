/**
 * The chart's actions about the model call: sending the request, taking the streamed text and
 * tool-call fragments, and ending the call (a response, a failure to retry or give up on, or a
 * turn cut short).
 */
import { assertEvent } from 'xstate';
import { retryDelay } from './backoff.js';
import { appended, type ChartAction, type ChartStep } from './chartStep.js';
import { settleOutputCalls } from './outputSpec.js';
import type { AgentAction, LlmCallEnding } from './actions.js';
import type { AgentContext, StreamingToolCall } from './context.js';
import { deduplicateToolUseIds } from './deduplicateToolUseIds.js';
import { NON_RETRYABLE_ERRORS } from './guards.js';
import type { LlmError } from './messages.js';
import { buildRequest, partialAssistantMessage } from './transcript.js';
import { callUsage } from './callUsage.js';
import { inputTokensOf } from './usage.js';

/** A model call has nothing streamed yet. */
const NOTHING_STREAMED = { streamingText: '', streamingToolCalls: [] as StreamingToolCall[] };

/** One attempt of the model call starts (on entering `CallingLlm`). */
export const sendLlmRequest: ChartAction = (context) => ({
  context: NOTHING_STREAMED,
  emit: [{ type: 'SendLlmRequest', request: buildRequest(context), attempt: context.retries + 1 }],
});

/** An attempt's own start: what an earlier attempt of the call streamed is dropped. */
export const clearStream: ChartAction = () => ({ context: NOTHING_STREAMED });

/** The response goes into the transcript; its tool calls become the runs of `ExecutingTools`. */
export const recordResponse: ChartAction = (context, event) => {
  assertEvent(event, 'LlmCompleted');
  // One run per tool_use id, and no id twice in any later request.
  const { response, toolRuns } = deduplicateToolUseIds(event.response, context.messages);
  // The API rejects an empty assistant message in the middle of a transcript.
  const message = response.message.content.length > 0 ? response.message : null;
  const { tokens, usage, turn, reported } = callUsage(context, response);
  const answer = settleOutputCalls(toolRuns, context.output, response);
  return {
    context: {
      ...NOTHING_STREAMED,
      messages: appended(context, message),
      toolRuns: answer.runs,
      output: answer.output,
      stopReason: response.stopReason ?? null,
      // A container stays in use until a response names another.
      containerId: response.container?.id ?? context.containerId,
      retries: 0,
      lastError: null,
      window: {
        ...context.window,
        lastCall: ending(context, 'completed'),
        // What the API counted is the transcript up to this response, the response included.
        measured:
          response.usage === undefined
            ? null
            : {
                tokens: inputTokensOf(tokens) + tokens.output_tokens,
                messages: context.messages.length + (message === null ? 0 : 1),
              },
      },
      usage,
      turn,
    },
    emit: [ended(context, 'completed'), reported],
  };
};

/** A failure to retry: the next attempt waits out a backoff (seeded jitter, `Retry-After`). */
export const recordRetryableError: ChartAction = (context, event) => {
  assertEvent(event, 'LlmError');
  const retries = context.retries + 1;
  const { delayMs, rngState } = retryDelay(
    retries,
    context.config.backoff,
    context.rngState,
    event.error.retryAfterMs,
  );
  return {
    context: {
      ...NOTHING_STREAMED,
      retries,
      lastError: event.error,
      retryDelayMs: delayMs,
      rngState,
      window: { ...context.window, lastCall: ending(context, 'failed') },
    },
    emit: [ended(context, 'failed')],
  };
};

/** A failure that is not retried (or the last attempt's): the turn ends, and the user is told. */
export const giveUp: ChartAction = (context, event) => {
  assertEvent(event, 'LlmError');
  return {
    context: {
      ...NOTHING_STREAMED,
      lastError: event.error,
      retries: 0,
      window: { ...context.window, lastCall: ending(context, 'failed') },
    },
    emit: [
      ended(context, 'failed'),
      { type: 'DisplayError', message: describeGiveUp(event.error, context.retries + 1) },
    ],
  };
};

/**
 * The turn is cut short during the call: the text the user already saw is kept as an assistant
 * message; half-streamed tool calls are dropped (they would have no result); the call is aborted.
 */
export const keepStreamedText: ChartAction = (context): ChartStep => ({
  context: {
    ...NOTHING_STREAMED,
    messages: appended(context, partialAssistantMessage(context.streamingText)),
    window: { ...context.window, lastCall: ending(context, 'interrupted') },
  },
  emit: [ended(context, 'interrupted'), { type: 'Cancel', llm: true }],
});

/** How the call ends: its response (or what it streamed) goes where the transcript ends now. */
function ending(context: AgentContext, status: LlmCallEnding['status']): LlmCallEnding {
  return { status, transcriptIndex: context.messages.length };
}

function ended(context: AgentContext, status: LlmCallEnding['status']): AgentAction {
  return { type: 'LlmCallEnded', ...ending(context, status) };
}

function describeGiveUp(error: LlmError, attempts: number): string {
  if (NON_RETRYABLE_ERRORS.has(error.kind)) {
    return `Model call failed (${error.kind}, not retried): ${error.message}`;
  }
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  return `Model call failed after ${tries} (${error.kind}): ${error.message}`;
}
