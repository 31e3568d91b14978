/**
 * Stand-ins for the invoked actors, built like `src/actors/llmActor.ts` and `toolActor.ts` but
 * with the network and the tools taken out: the model call pushes its deltas through a real
 * `DeltaCoalescer` and answers with `sendBack`, exactly as the real actor does, and each handle is
 * exposed so the benchmark (not a timer) decides when a stream delivers and a tool finishes.
 * That keeps the model and tool work instant and the measurement synchronous.
 */
import {
  type AnyActorScope,
  type AnyEventObject,
  type CallbackLogicFunction,
  type EventObject,
  fromCallback,
} from 'xstate';
import { DeltaCoalescer, type FlushScheduler } from '../../src/actors/deltaCoalescer.js';
import {
  type AgentEvent,
  type LlmActorInput,
  type PostToolsHookInput,
  type RetryTimerInput,
  type ToolActorInput,
} from '../../src/index.js';
import type { Delta } from '../fixtures/conversation.js';

/** The running model call of one agent, as the benchmark drives it. */
export interface ModelCallHandle {
  /** One delta as the SDK parses it from the stream (goes through the coalescer). */
  push(delta: Delta): void;
  /** Sends an event straight to the chart, as `llmActor` does for the final event. */
  sendBack(event: AgentEvent): void;
  /** Flushes pending deltas, as `llmActor` does before `LlmError`. */
  flush(): void;
  /** Ends the stream, as `llmActor` does before `LlmCompleted`. */
  finish(): void;
}

/** The handles of one agent's running actors. */
export class ActorHandles {
  llm: ModelCallHandle | null = null;
  readonly tools = new Map<string, (event: AgentEvent) => void>();
}

/**
 * A flush scheduler the benchmark triggers by hand: `tick()` stands for the end of the I/O tick
 * in which the deltas arrived (where `setImmediate` would fire).
 */
export interface ManualTicks {
  readonly schedule: FlushScheduler;
  tick(): void;
}

export function manualTicks(): ManualTicks {
  let pending: (() => void) | null = null;
  return {
    schedule: (flush) => {
      pending = flush;
      return () => {
        pending = null;
      };
    },
    tick: () => {
      const flush = pending;
      pending = null;
      flush?.();
    },
  };
}

/**
 * The four actors' callback bodies: `createAgent({ actors })` takes them as they are and keeps the
 * agent on its shared machine. Without a `schedule`, the coalescer flushes on its own default,
 * `setImmediate`, as in production.
 */
export function benchCallbacks(
  agent: ActorHandles | ((system: AnyActorScope['system']) => ActorHandles),
  schedule?: FlushScheduler,
): BenchCallbacks {
  // One agent's handles, or a lookup by actor system so one provided machine can serve many
  // agents (the shared-machine prototype).
  const handlesOf = typeof agent === 'function' ? agent : () => agent;
  return {
    llm: (({ sendBack, system }) => {
      const handles = handlesOf(system);
      // As llmActor does: one batch per tick.
      const coalescer = new DeltaCoalescer(sendBack, schedule);
      const handle: ModelCallHandle = {
        push: (delta) => coalescer.push(delta),
        sendBack,
        flush: () => coalescer.flush(),
        finish: () => coalescer.flush(),
      };
      handles.llm = handle;
      return () => {
        coalescer.discard();
        // The next model call may have started before this one is disposed.
        if (handles.llm === handle) handles.llm = null;
      };
    }) satisfies Body<LlmActorInput>,
    tool: (({ input, sendBack, system }) => {
      const handles = handlesOf(system);
      const id = input.call.id;
      handles.tools.set(id, sendBack);
      return () => {
        if (handles.tools.get(id) === sendBack) handles.tools.delete(id);
      };
    }) satisfies Body<ToolActorInput>,
    postToolsHook: (({ sendBack }) => {
      // Never reached by the benchmark's turn (read_file is read-only); answers on the next tick.
      const handle = setImmediate(() =>
        sendBack({ type: 'PostToolsHookCompleted', actionTaken: false } satisfies AgentEvent),
      );
      return () => clearImmediate(handle);
    }) satisfies Body<PostToolsHookInput>,
    retryTimer: (() => undefined) satisfies Body<RetryTimerInput>,
  };
}

type Body<Input> = CallbackLogicFunction<EventObject, AnyEventObject, Input>;

/** The four callback bodies, by actor name. */
export interface BenchCallbacks {
  llm: Body<LlmActorInput>;
  tool: Body<ToolActorInput>;
  postToolsHook: Body<PostToolsHookInput>;
  retryTimer: Body<RetryTimerInput>;
}

/** The same four actors as actor logic, for `agentMachine.provide({ actors })`. */
export function benchActors(
  agent: ActorHandles | ((system: AnyActorScope['system']) => ActorHandles),
  schedule?: FlushScheduler,
) {
  const bodies = benchCallbacks(agent, schedule);
  return {
    llm: fromCallback<EventObject, LlmActorInput>(bodies.llm),
    tool: fromCallback<EventObject, ToolActorInput>(bodies.tool),
    postToolsHook: fromCallback<EventObject, PostToolsHookInput>(bodies.postToolsHook),
    retryTimer: fromCallback<EventObject, RetryTimerInput>(bodies.retryTimer),
  };
}
