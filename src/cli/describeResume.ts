/**
 * What resuming a stored session did, in words: the chart as it was restored, the `Resume` it
 * took, and the chart after it say which model call was sent again, which tool calls were run
 * again (and why that was safe) and which were reported to the model as interrupted.
 */
import type { InspectionEvent } from 'xstate';
import {
  type AgentContext,
  type AgentStateName,
  type AgentStateValue,
  describeStateValue,
  isMutatingTool,
  openQuestionsOf,
  type ResumeEvent,
  type ToolCall,
  type UserQuestion,
} from '../machine/index.js';

/** The part of a chart snapshot a description reads. */
export interface ChartState {
  value: AgentStateName | AgentStateValue;
  context: AgentContext;
}

/**
 * A resume as it happened: the chart before and after its `Resume`.
 *
 * @example
 * const resumed: ObservedResume = { before, resume: { type: 'Resume' }, after };
 */
export interface ObservedResume {
  before: ChartState;
  resume: ResumeEvent;
  after: ChartState;
}

/**
 * One thing the resume did.
 *
 * - `sent again`: the model call in flight, sent again (its partial text dropped);
 * - `re-run`: a tool call run again, with why that is safe;
 * - `interrupted`: a tool call the model is told may or may not have taken effect;
 * - `asked again`: an approval that was pending, or questions of the model (`ask_user`) that were
 *   waiting for answers;
 * - `hook re-run`, `backoff`, `queued`: the post-tools hook, a retry's backoff, queued input.
 *
 * @example
 * const item: ResumeItem = { kind: 're-run', text: 'read_file {"path":"a.txt"} (read-only)' };
 */
export interface ResumeItem {
  kind:
    'sent again' | 're-run' | 'interrupted' | 'asked again' | 'hook re-run' | 'backoff' | 'queued';
  text: string;
}

/**
 * An inspection observer that catches the `Resume` a restored agent takes first; `result()`
 * returns it once the chart has handled it (`undefined` for a session that was at rest).
 *
 * @example
 * const watch = watchResume();
 * const agent = createAgent({ store, sessionId, inspect: watch.observer });
 * await agent.ready;
 * watch.result(); // { before, resume, after }
 */
export function watchResume(): {
  observer: (event: InspectionEvent) => void;
  result: () => ObservedResume | undefined;
} {
  let pending: Omit<ObservedResume, 'after'> | undefined;
  let seen: ObservedResume | undefined;
  let done = false;
  return {
    observer(inspection) {
      if (done || inspection.rootId !== inspection.actorRef.sessionId) return;
      if (inspection.type === '@xstate.event') {
        const event = inspection.event as { type: string };
        if (event.type.startsWith('xstate.')) return;
        // Only the first event the chart takes can be a restored session's Resume.
        if (event.type !== 'Resume') {
          done = true;
          return;
        }
        pending = {
          before: inspection.actorRef.getSnapshot() as ChartState,
          resume: event as ResumeEvent,
        };
      } else if (inspection.type === '@xstate.snapshot' && pending !== undefined) {
        seen = { ...pending, after: inspection.snapshot as unknown as ChartState };
        done = true;
      }
    },
    result: () => seen,
  };
}

/**
 * The things a resume did, in the order a reader wants them.
 *
 * @example
 * for (const item of describeResume(resumed)) console.log(item.kind, item.text);
 */
export function describeResume({ before, resume, after }: ObservedResume): ResumeItem[] {
  const items: ResumeItem[] = [];
  const specs = after.context.config.tools;
  const started = resume.startedToolCallIds;
  const place = describeStateValue(before.value);
  const compacting = before.context.window.compacting;
  if (place === 'WaitingForUserInput.CheckingPrompt') {
    items.push({ kind: 'hook re-run', text: 'the userPromptSubmit hook on the waiting prompt' });
  } else if (place === 'ProcessingLlmResponse.CheckingStop') {
    items.push({ kind: 'hook re-run', text: "the stop hook on the model's last response" });
  } else if (place.endsWith('.CheckingCompaction')) {
    items.push({
      kind: 'hook re-run',
      text: `the preCompact hook on the ${compacting?.trigger ?? 'auto'} compaction`,
    });
  } else if (place.endsWith('.Compacting')) {
    items.push({
      kind: 'sent again',
      text: `the summary call of the ${compacting?.trigger ?? 'auto'} compaction (its partial answer dropped)`,
    });
  }
  // `CallingLlm` alone: a chart state given by its top-level name.
  switch (place) {
    case 'CallingLlm':
    case 'CallingLlm.Streaming':
      items.push({ kind: 'sent again', text: 'the model call (its partial answer dropped)' });
      break;
    case 'PostToolsHook':
      items.push({ kind: 'hook re-run', text: 'the post-tools hook (git auto-commit)' });
      break;
    case 'Error':
      items.push({
        kind: 'backoff',
        text: `the retry's backoff resumes with ${after.context.retryDelayMs} ms left`,
      });
      break;
    default:
      break;
  }
  for (const run of before.context.toolRuns) {
    if (run.status === 'done') continue;
    const now = after.context.toolRuns.find((candidate) => candidate.call.id === run.call.id);
    const call = describeCall(run.call);
    if (run.status === 'awaitingApproval') {
      items.push({ kind: 'asked again', text: `${call} waits for approval again` });
    } else if (run.status === 'awaitingAnswer') {
      // Its input is the questions, said in words rather than as JSON.
      for (const { questions } of openQuestionsOf([run])) {
        items.push({
          kind: 'asked again',
          text: `${run.call.name} waits for answers to: ${describeQuestions(questions)}`,
        });
      }
    } else if (run.status === 'preHook' || run.status === 'postHook') {
      const hook = run.status === 'preHook' ? 'preToolUse' : 'postToolUse';
      items.push({ kind: 'hook re-run', text: `the ${hook} hook on ${call}` });
    } else if (now?.status === 'running') {
      const reason =
        started !== undefined && !started.includes(run.call.id)
          ? 'it had not started'
          : !isMutatingTool(run.call.name, specs)
            ? 'read-only'
            : 'idempotent';
      items.push({ kind: 're-run', text: `${call} (${reason})` });
    } else if (now?.outcome?.status === 'error') {
      const told = now.outcome.error.message.replace(/^interrupted: /, '');
      items.push({ kind: 'interrupted', text: `${call}: ${told}` });
    }
  }
  // A prompt the userPromptSubmit hook is checking again is not one kept for later.
  const checking = place === 'WaitingForUserInput.CheckingPrompt';
  const count = after.context.queue.length - (checking ? 1 : 0);
  if (count > 0) {
    items.push({
      kind: 'queued',
      text: `${count} queued message${count === 1 ? '' : 's'} kept for the next turn`,
    });
  }
  return items;
}

/** A tool call as one line: its name and input. */
export function describeCall(call: ToolCall): string {
  return `${call.name} ${JSON.stringify(call.input)}`;
}

/**
 * Questions the model asked, on one line: each under its header.
 *
 * @example
 * describeQuestions([{ header: 'Colour', question: 'Which colour?' }]); // '[Colour] Which colour?'
 */
export function describeQuestions(questions: readonly UserQuestion[]): string {
  return questions.map(({ header, question }) => `[${header}] ${question}`).join(' · ');
}
