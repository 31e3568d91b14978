/**
 * Scripted doubles for the chart's seven invoked actors. They do nothing on their own: a path
 * runner finds the double behind a child of the agent actor and makes it answer with the path's
 * next event (`sendBack`), or crash (a receive handler that throws, as a buggy actor would; the
 * failure boundary the runner puts around each double turns it into the chart's event). Each
 * double remembers its input and whether it was stopped, so runners can check what the chart
 * handed its actors and what it cancelled. The `hook` double runs every hook: a call's (with
 * `hookActorId(call.id)` as id) and the hooks on a turn (`promptHook`, `stopHook`).
 */
import { type AnyActorRef, type AnyEventObject, fromCallback } from 'xstate';
import type {
  LlmActorInput,
  PostToolsHookInput,
  RetryTimerInput,
  ToolActorInput,
  ToolGraceTimerInput,
  HookInput,
  SubagentActorInput,
} from '../../src/index.js';
import { CRASH_MESSAGE } from './pathEvents.js';

/** The event a runner sends a double to make it crash. */
export const CRASH_EVENT = { type: 'graphTest.crash' } as const;

/** A live double, as its runner sees it. */
export type ScriptedDouble =
  | { kind: 'llm'; input: LlmActorInput; control: DoubleControl }
  | { kind: 'tool'; input: ToolActorInput; control: DoubleControl }
  | { kind: 'postToolsHook'; input: PostToolsHookInput; control: DoubleControl }
  | { kind: 'retryTimer'; input: RetryTimerInput; control: DoubleControl }
  | { kind: 'toolGraceTimer'; input: ToolGraceTimerInput; control: DoubleControl }
  | { kind: 'hook'; input: HookInput; control: DoubleControl }
  | { kind: 'subagent'; input: SubagentActorInput; control: DoubleControl };

/** How a runner drives a double. */
export interface DoubleControl {
  sendBack: (event: AnyEventObject) => void;
  /** Set when the agent stopped the double (left the state, or cancelled the call). */
  stopped: boolean;
}

// Keyed by actor ref, so doubles of different runs never meet.
const doubles = new WeakMap<AnyActorRef, ScriptedDouble>();

/** The double behind a child actor of the agent, if it is one. */
export function doubleOf(child: AnyActorRef): ScriptedDouble | undefined {
  return doubles.get(child);
}

function scripted<TInput>(describe: (input: TInput, control: DoubleControl) => ScriptedDouble) {
  return fromCallback<AnyEventObject, TInput>(({ self, input, sendBack, receive }) => {
    const control: DoubleControl = { sendBack, stopped: false };
    doubles.set(self, describe(input, control));
    receive((event) => {
      if (event.type === CRASH_EVENT.type) throw new Error(CRASH_MESSAGE);
    });
    return () => {
      control.stopped = true;
    };
  });
}

/** The seven doubles, to pass (each behind the failure boundary) to `agentMachine.provide`. */
export const scriptedActors = {
  llm: scripted<LlmActorInput>((input, control) => ({ kind: 'llm', input, control })),
  tool: scripted<ToolActorInput>((input, control) => ({ kind: 'tool', input, control })),
  postToolsHook: scripted<PostToolsHookInput>((input, control) => ({
    kind: 'postToolsHook',
    input,
    control,
  })),
  retryTimer: scripted<RetryTimerInput>((input, control) => ({
    kind: 'retryTimer',
    input,
    control,
  })),
  toolGraceTimer: scripted<ToolGraceTimerInput>((input, control) => ({
    kind: 'toolGraceTimer',
    input,
    control,
  })),
  hook: scripted<HookInput>((input, control) => ({ kind: 'hook', input, control })),
  subagent: scripted<SubagentActorInput>((input, control) => ({
    kind: 'subagent',
    input,
    control,
  })),
};
