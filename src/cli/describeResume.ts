/**
 * What resuming a stored session did, in words: the actions the chart's `Resume` took say which
 * model call was sent again, which hooks were asked again, which tool calls were run again (and
 * why that was safe); the chart before and after it, which calls were reported to the model as
 * interrupted.
 */
import { getMicrosteps, type InspectionEvent } from 'xstate';
import {
  type AgentAction,
  type AgentConfig,
  type AgentContext,
  agentMachine,
  type AgentSnapshot,
  type AgentStateValue,
  isMutatingTool,
  type ResumeEvent,
  restoreMachineSnapshot,
  type ToolCall,
  type UserQuestion,
} from '../machine/index.js';
import { emittedBy, emittedEvents } from '../inspect/index.js';

/** The part of a chart snapshot a description reads. */
export interface ChartState {
  value: AgentStateValue;
  context: AgentContext;
}

/**
 * A resume as it happened: the chart before its `Resume`, the actions the `Resume`'s own step
 * took, and the chart as that step left it (the microsteps after it, where the chart goes on
 * once every call is answered, are not the resume's).
 *
 * @example
 * const resumed: ObservedResume = { before, resume: { type: 'Resume' }, actions, after };
 */
export interface ObservedResume {
  before: ChartState;
  resume: ResumeEvent;
  actions: AgentAction[];
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
 * - `hook re-run`, `backoff`, `queued`: a hook asked again, a retry's backoff, queued input.
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
 * returns it once the chart has taken its step (`undefined` for a session that was at rest).
 *
 * @example
 * const watch = watchResume();
 * const agent = createAgent({ store, sessionId, inspect: watch.observer });
 * await agent.ready;
 * watch.result(); // { before, resume, actions, after }
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
          actions: [],
        };
      } else if (inspection.type === '@xstate.action' && pending !== undefined) {
        // A microstep's actions are reported before the microstep itself.
        const emitted = emittedBy(inspection.action);
        if (emitted !== undefined) pending.actions.push(emitted as AgentAction);
      } else if (inspection.type === '@xstate.microstep' && pending !== undefined) {
        seen = { ...pending, after: inspection.snapshot as unknown as ChartState };
        done = true;
      }
    },
    result: () => seen,
  };
}

/**
 * What resuming `snapshot` with `resume` would do, worked out on the chart's own pure transition:
 * nothing runs and nothing is written.
 *
 * @example
 * const { core, resume } = await openSession(store, 'alice-1', { config });
 * if (resume) describeResume(previewResume(core.snapshot(), config, resume));
 */
export function previewResume(
  snapshot: AgentSnapshot,
  config: AgentConfig,
  resume: ResumeEvent,
): ObservedResume {
  const restored = restoreMachineSnapshot(agentMachine, snapshot, config);
  const [step] = getMicrosteps(agentMachine, restored, resume);
  const after = step?.[0] ?? restored;
  return {
    before: { value: restored.value, context: restored.context },
    resume,
    actions: emittedEvents(step?.[1] ?? []) as AgentAction[],
    after: { value: after.value, context: after.context },
  };
}

/**
 * The things a resume did: what its actions ask for again, the calls it answered as
 * interrupted, and the input it keeps queued.
 *
 * @example
 * for (const item of describeResume(resumed)) console.log(item.kind, item.text);
 */
export function describeResume(resumed: ObservedResume): ResumeItem[] {
  const { before, actions, after } = resumed;
  const items = actions.flatMap((action) => describeAction(action, resumed));
  for (const run of before.context.toolRuns) {
    if (run.status === 'done') continue;
    const now = after.context.toolRuns.find((candidate) => candidate.call.id === run.call.id);
    if (now?.status !== 'done' || now.outcome?.status !== 'error') continue;
    const told = now.outcome.error.message.replace(/^interrupted: /, '');
    items.push({ kind: 'interrupted', text: `${describeCall(run.call)}: ${told}` });
  }
  // A prompt the userPromptSubmit hook is asked about again is not one kept for later.
  const checked = actions.find((action) => action.type === 'RunUserPromptSubmitHook');
  const count = after.context.queue.filter((message) => message !== checked?.prompt).length;
  if (count > 0) {
    items.push({
      kind: 'queued',
      text: `${count} queued message${count === 1 ? '' : 's'} kept for the next turn`,
    });
  }
  return items;
}

/** What one action of a `Resume` does again, in words (nothing, for one that says nothing). */
function describeAction(action: AgentAction, { resume, after }: ObservedResume): ResumeItem[] {
  const hook = (text: string): ResumeItem[] => [{ kind: 'hook re-run', text }];
  const rerun = (call: ToolCall): ResumeItem => {
    const started = resume.startedToolCallIds;
    const reason =
      started !== undefined && !started.includes(call.id)
        ? 'it had not started'
        : !isMutatingTool(call.name, after.context.config.tools)
          ? 'read-only'
          : 'idempotent';
    return { kind: 're-run', text: `${describeCall(call)} (${reason})` };
  };
  switch (action.type) {
    case 'SendLlmRequest':
      return [{ kind: 'sent again', text: 'the model call (its partial answer dropped)' }];
    case 'SendCompactionRequest':
      return [
        {
          kind: 'sent again',
          text: `the summary call of the ${action.trigger} compaction (its partial answer dropped)`,
        },
      ];
    case 'RunPreCompactHook':
      return hook(`the preCompact hook on the ${action.trigger} compaction`);
    case 'RunUserPromptSubmitHook':
      return hook('the userPromptSubmit hook on the waiting prompt');
    case 'RunStopHook':
      return hook("the stop hook on the model's last response");
    case 'RunPostToolsHook':
      return hook('the post-tools hook (git auto-commit)');
    case 'RunPreToolUseHook':
      return hook(`the preToolUse hook on ${describeCall(action.call)}`);
    case 'RunPostToolUseHook':
      return hook(`the postToolUse hook on ${describeCall(action.call)}`);
    case 'ScheduleRetry':
      return [
        { kind: 'backoff', text: `the retry's backoff resumes with ${action.delayMs} ms left` },
      ];
    case 'ExecuteTools':
      return action.calls.map(rerun);
    case 'StartSubagent':
      return [rerun(action.call)];
    case 'RequestApproval':
      return [
        { kind: 'asked again', text: `${describeCall(action.call)} waits for approval again` },
      ];
    case 'AskUser': {
      // Its input is the questions, said in words rather than as JSON.
      const run = after.context.toolRuns.find((candidate) => candidate.call.id === action.callId);
      const name = run?.call.name ?? 'ask_user';
      return [
        {
          kind: 'asked again',
          text: `${name} waits for answers to: ${describeQuestions(action.questions)}`,
        },
      ];
    }
    default:
      return [];
  }
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
