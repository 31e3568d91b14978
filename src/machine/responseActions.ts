/**
 * The chart's actions in `ProcessingLlmResponse`: what a response's stop reason means for the turn.
 */
import { appended, type ChartAction } from './chartStep.js';
import { closeOpenRuns, errorOutcome } from './toolRuns.js';
import { toolResultsMessage } from './transcript.js';

/** A refusal's tool calls never run; each is answered so the transcript stays valid. */
export const refuseToolCalls: ChartAction = (context) => {
  if (context.toolRuns.length === 0) return {};
  const runs = closeOpenRuns(
    context.toolRuns,
    errorOutcome('not run: the model ended its response with a refusal'),
  );
  return { context: { toolRuns: runs, messages: appended(context, toolResultsMessage(runs)) } };
};

/** The user is told when a response ended in a refusal or was cut off at `max_tokens`. */
export const reportStopReason: ChartAction = (context) => {
  if (context.stopReason === 'refusal') {
    return {
      emit: [
        {
          type: 'DisplayError',
          message: 'The model declined to continue (stop_reason: refusal).',
        },
      ],
    };
  }
  if (context.stopReason === 'max_tokens') {
    return {
      emit: [
        {
          type: 'DisplayError',
          message: `The response was cut off at max_tokens (${context.config.maxTokens}); ask the model to continue.`,
        },
      ],
    };
  }
  return {};
};
