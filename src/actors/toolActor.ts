/**
 * The `tool` actor: one per tool call, spawned by the chart with the call id as its id. It runs
 * the call through the registry with a timeout and an `AbortSignal`, and answers with one
 * `ToolCompleted`. An `AbortTool` event (an interrupt) aborts the call and still reports how it
 * ended; stopping the actor (a shutdown) aborts it and drops its late result.
 */
import { type EventObject, fromCallback } from 'xstate';
import {
  type AgentDiagnostic,
  type AgentEvent,
  AgentStatechartError,
  type BeforeEffect,
  errorMessage,
  errorOutcome,
  type ToolActorInput,
  type ToolOutcome,
} from '../machine/index.js';
import type { InFlightWork } from './inFlightWork.js';
import type { ToolRegistry } from './tools/createToolRegistry.js';
import { runToolCall } from './tools/runToolCall.js';

/**
 * Options of {@link createToolActor}.
 *
 * @example
 * const options: ToolActorOptions = { registry, workspace: '/srv/repo', timeoutMs: 60_000 };
 */
export interface ToolActorOptions {
  registry: ToolRegistry;
  /** Root the built-in tools are confined to. */
  workspace: string;
  /** Overrides every tool's own timeout. */
  timeoutMs?: number;
  /** Where the actor registers its call, so a graceful shutdown can wait for it. */
  inFlight?: InFlightWork;
  /** Awaited before the call starts (a durable session records it first). */
  beforeStart?: BeforeEffect;
  /** Told about a progress report that was dropped because JSON cannot hold it. */
  onDiagnostic?: (diagnostic: AgentDiagnostic) => void;
}

/**
 * Makes the `tool` actor for `agentMachine.provide({ actors: { tool } })`.
 *
 * @example
 * const tool = createToolActor({ registry: createToolRegistry(createBuiltinTools()), workspace: process.cwd() });
 */
export function createToolActor(options: ToolActorOptions) {
  return fromCallback<EventObject, ToolActorInput>(({ input, sendBack, receive }) => {
    const controller = new AbortController();
    let stopped = false;
    const { call } = input;
    // An interrupt aborts the call but keeps listening: the call may finish its work anyway, and
    // the chart wants to know how it really ended. Stopping the actor drops whatever comes later.
    receive((event) => {
      if (event.type === 'AbortTool') {
        controller.abort(new AgentStatechartError('CANCELLED', 'the user interrupted the turn'));
      }
    });
    const run = async (): Promise<ToolOutcome> => {
      try {
        await options.beforeStart?.({
          effect: 'tool',
          callId: call.id,
          name: call.name,
          mutating: options.registry.isMutating(call.name),
        });
      } catch (error) {
        return errorOutcome(`not run: ${errorMessage(error)}`);
      }
      if (stopped) return errorOutcome('cancelled before it started');
      return runToolCall(options.registry, call, {
        workspace: options.workspace,
        signal: controller.signal,
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        onProgress: (progress) => {
          if (!controller.signal.aborted) {
            sendBack({ type: 'ToolProgress', callId: call.id, progress });
          }
        },
        onProgressRefused: (problem, progress) =>
          options.onDiagnostic?.({
            code: 'MALFORMED_EVENT',
            message: `ToolProgress from the ${call.name} call ${call.id}: ${problem}; it was dropped`,
            state: 'ExecutingTools',
            event: { type: 'ToolProgress', callId: call.id, progress },
          }),
      });
    };
    const work = run().then((outcome) => {
      if (!stopped)
        sendBack({ type: 'ToolCompleted', callId: call.id, outcome } satisfies AgentEvent);
    });
    options.inFlight?.track(work);
    return () => {
      stopped = true;
      controller.abort(new AgentStatechartError('CANCELLED', 'the tool call was cancelled'));
    };
  });
}
