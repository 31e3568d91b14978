/**
 * The chart's actions about compaction: starting one (a request that would pass the threshold, or
 * a `Compact` event), the `preCompact` hook's answer, the summary call, and the transcript made
 * of the summary and the recent messages. A compaction that does not happen leaves the
 * transcript as it was.
 */
import { assertEvent } from 'xstate';
import { runHookAction } from './actorInputs.js';
import type { AgentAction } from './actions.js';
import type { ChartAction, ChartStep } from './chartStep.js';
import { compactedTranscript, compactionRequest, type CompactionTrigger } from './compaction.js';
import type { AgentContext } from './context.js';
import type { AgentEvent } from './events.js';
import { messageText } from './messages.js';
import { callUsage } from './callUsage.js';
import { preCompactHookInput } from './turnHookInputs.js';

/** A request would pass the threshold: it compacts first. */
export const beginCompaction: ChartAction = (context) =>
  underway(context, {
    trigger: 'auto',
    instructions: [],
    checked: !context.config.hooks.preCompact,
  });

/** A `Compact` event asked for a compaction, with what the summary must keep. */
export const beginRequestedCompaction: ChartAction = (context, event) => {
  assertEvent(event, 'Compact');
  const instructions = event.instructions === undefined ? [] : [event.instructions];
  return underway(context, {
    trigger: 'manual',
    instructions,
    checked: !context.config.hooks.preCompact,
  });
};

/** A `Compact` event with nothing older than the latest exchange to summarise. */
export const reportNothingToCompact: ChartAction = () => ({
  emit: [
    {
      type: 'CompactionSkipped',
      trigger: 'manual',
      reason: 'there is nothing to summarise yet: the latest exchange always stays as it is',
    },
  ],
});

export const runPreCompactHook: ChartAction = (context) => ({
  emit: [runHookAction(preCompactHookInput(context))],
});

/** The `preCompact` hook let the compaction go on, maybe with instructions; a failed hook too. */
export const applyPreCompactDecision: ChartAction = (context, event) => {
  assertEvent(event, 'PreCompactDecision');
  const compacting = context.window.compacting;
  if (compacting === null) return {};
  const added = event.error === undefined && event.instructions ? [event.instructions] : [];
  const step = underway(context, {
    ...compacting,
    instructions: [...compacting.instructions, ...added],
    checked: true,
  });
  if (event.error === undefined) return step;
  return {
    ...step,
    emit: [
      { type: 'DisplayError', message: `${event.error}; the compaction goes on`, source: 'hook' },
    ],
  };
};

/** The `preCompact` hook vetoed the compaction: the transcript stays as it is. */
export const blockCompaction: ChartAction = (context, event) => {
  assertEvent(event, 'PreCompactDecision');
  const why = event.reason === undefined ? '' : `: ${event.reason}`;
  return skipped(context, `the preCompact hook blocked it${why}`);
};

export const sendCompactionRequest: ChartAction = (context) => ({
  emit: [
    {
      type: 'SendCompactionRequest',
      request: compactionRequest(context),
      trigger: context.window.compacting?.trigger ?? 'auto',
    },
  ],
});

/**
 * The summary came: the transcript becomes the summary and the messages after the cut. The call
 * is paid for like any model call; an empty summary changes nothing.
 */
export const compactTranscript: ChartAction = (context, event) => {
  assertEvent(event, 'LlmCompleted');
  const summary = messageText(event.response.message).trim();
  const { usage, turn, reported } = callUsage(context, event.response);
  const paid = { usage, turn };
  if (summary === '') {
    const step = skipped(context, 'the model answered with no summary');
    return { context: { ...step.context, ...paid }, emit: [reported, ...(step.emit ?? [])] };
  }
  const trigger = context.window.compacting?.trigger ?? 'auto';
  const messages = compactedTranscript(context, summary);
  return {
    context: {
      ...paid,
      messages,
      window: {
        lastCall: null,
        measured: null,
        compactions: context.window.compactions + 1,
        compacting: null,
      },
    },
    emit: [
      reported,
      {
        type: 'Compacted',
        trigger,
        summary,
        summarised: context.messages.length - (messages.length - 1),
        kept: messages.length - 1,
      },
    ],
  };
};

/** The summary call failed: the transcript stays as it is, and the user is told. */
export const failCompaction: ChartAction = (context, event) => {
  assertEvent(event, 'LlmError');
  const step = skipped(
    context,
    `the summary call failed (${event.error.kind}): ${event.error.message}`,
  );
  const whole =
    context.window.compacting?.trigger === 'manual' ? '' : '; the request goes out whole';
  const message = `Compaction failed (${event.error.kind}): ${event.error.message}${whole}`;
  return { ...step, emit: [...(step.emit ?? []), { type: 'DisplayError', message }] };
};

/** An interrupt or a shutdown during the summary call: it is aborted, the transcript unchanged. */
export const abandonCompaction: ChartAction = (context, event) => {
  const step = skipped(context, abandonedBy(event));
  return { ...step, emit: [{ type: 'Cancel', llm: true }, ...(step.emit ?? [])] };
};

/** An interrupt or a shutdown while the `preCompact` hook decides: the hook is cancelled. */
export const abandonCompactionCheck: ChartAction = (context, event) => {
  const step = skipped(context, abandonedBy(event));
  return { ...step, emit: [{ type: 'Cancel', hook: true }, ...(step.emit ?? [])] };
};

function abandonedBy(event: AgentEvent): string {
  return event.type === 'ShutdownRequested' ? 'the agent shut down' : 'it was interrupted';
}

function underway(
  context: AgentContext,
  compacting: NonNullable<AgentContext['window']['compacting']>,
): ChartStep {
  return { context: { window: { ...context.window, compacting } } };
}

function skipped(context: AgentContext, reason: string): ChartStep {
  const trigger: CompactionTrigger = context.window.compacting?.trigger ?? 'auto';
  const action: AgentAction = { type: 'CompactionSkipped', trigger, reason };
  return {
    context: { window: { ...context.window, compacting: null } },
    emit: [action],
  };
}
