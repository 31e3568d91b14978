/**
 * The boundary around each of the chart's invoked actors. An actor answers the chart with the
 * chart's own events, its failures included (an `LlmError`, an error `ToolCompleted`, a
 * `PostToolsHookCompleted` saying the hook failed), so the chart has no handlers for XState's
 * actor errors. An actor that throws anyway — a bug in it, or in a replacement a caller supplied
 * — would otherwise stop the whole agent (XState puts a parent whose child errors unhandled into
 * its error state); here it becomes the event that stands for the failure (`failureEvent`), which
 * `onFailure` hands to the chart, and whoever drives the agent reports it once.
 */
import type {
  ActorLogic,
  AnyActorLogic,
  AnyActorRef,
  ActorSystem,
  EventObject,
  Snapshot,
} from 'xstate';
import {
  AgentStatechartError,
  type AgentActorName,
  type AgentEvent,
  errorMessage,
  failureEvent,
} from '../machine/index.js';

/**
 * Told when an actor threw: the event that stands for the failure (to give the chart) and the
 * error itself (to report).
 */
export type ActorFailureHandler = (
  failure: { actor: AgentActorName; event: AgentEvent; reason: string },
  error: unknown,
) => void;

/**
 * `logic` with its throws caught at the boundary: a throw while starting, while taking an event,
 * or a rejection that leaves the actor in XState's error state (a `fromPromise` that rejects) is
 * handed to `onFailure` with the chart's event for it, and the actor stays as it was until the
 * chart, taking that event, stops it.
 *
 * @example
 * const tool = withFailureBoundary('tool', myToolLogic, ({ event }) => chart.send(event));
 */
export function withFailureBoundary<TLogic extends AnyActorLogic>(
  actor: AgentActorName,
  logic: TLogic,
  onFailure: ActorFailureHandler,
): TLogic {
  const inner = logic as unknown as Logic;
  // The input each running actor was started with, for the event that stands for its failure.
  const inputs = new WeakMap<AnyActorRef, unknown>();
  const fail = (self: AnyActorRef, snapshot: unknown, error: unknown) => {
    const input = inputs.has(self) ? inputs.get(self) : (snapshot as { input?: unknown }).input;
    const reason = errorMessage(error);
    onFailure({ actor, event: failureEvent(actor, input, reason), reason }, error);
  };
  const guarded: Logic = {
    ...inner,
    getInitialSnapshot: (scope, input) => {
      inputs.set(scope.self, input);
      return inner.getInitialSnapshot(scope, input);
    },
    start: (snapshot, scope) => {
      try {
        inner.start?.(snapshot, scope);
      } catch (error) {
        fail(scope.self, snapshot, error);
      }
    },
    transition: (snapshot, event, scope) => {
      let next: Snapshot<unknown>;
      try {
        next = inner.transition(snapshot, event, scope);
      } catch (error) {
        fail(scope.self, snapshot, error);
        return snapshot;
      }
      if (next.status !== 'error') return next;
      fail(scope.self, snapshot, next.error);
      return snapshot;
    },
  };
  return guarded as unknown as TLogic;
}

/** Actor logic as the boundary sees it: it only passes snapshots and events through. */
type Logic = ActorLogic<Snapshot<unknown>, EventObject, unknown, ActorSystem<never>, EventObject>;

/**
 * Throws `INVALID_OPTION` unless `logic` is XState actor logic, saying what is expected: a
 * replacement of one of the chart's actors is made with `fromCallback`, `fromPromise` or a
 * machine, never a plain function.
 *
 * @example
 * checkActorLogic('postToolsHook', given.postToolsHook);
 */
export function checkActorLogic(
  actor: AgentActorName,
  logic: unknown,
): asserts logic is AnyActorLogic {
  const candidate = logic as Partial<AnyActorLogic> | null;
  const isLogic =
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.transition === 'function' &&
    typeof candidate.getInitialSnapshot === 'function';
  if (isLogic) return;
  const got = typeof logic === 'function' ? 'a plain function' : errorMessage(logic);
  throw new AgentStatechartError(
    'INVALID_OPTION',
    `actors.${actor} must be XState actor logic, made with fromCallback (an actor that answers the chart with its events through sendBack), fromPromise or a machine; got ${got}. Wrap a callback: fromCallback(${actor === 'llm' ? 'yourLlm' : 'yourFunction'})`,
  );
}
