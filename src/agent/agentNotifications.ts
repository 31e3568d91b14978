/**
 * What an agent started with `createAgent` tells its listeners, by name.
 */
import type { Actor } from 'xstate';
import type { AgentDiagnostic } from '../machine/agentCore.js';
import type { AgentMachine } from '../machine/agentMachine.js';
import { errorMessage } from '../machine/agentStatechartError.js';
import type { AgentAction, AgentStateName, ToolCall, ToolOutcome } from '../machine/types.js';

/**
 * The agent's notifications and their payloads.
 *
 * @example
 * agent.on('text', ({ text }) => process.stdout.write(text));
 * agent.on('toolEnd', ({ call, outcome }) => console.log(call.name, outcome.status));
 */
export interface AgentNotifications {
  /** Streamed model text, as the chart displays it (one piece per display frame). */
  text: { text: string };
  /** A tool call started running. */
  toolStart: { call: ToolCall };
  /** A tool call ended: completed, failed, denied, interrupted or cancelled. */
  toolEnd: { call: ToolCall; outcome: ToolOutcome };
  /** A tool call waits for `approve` or `deny`. */
  approvalRequest: { call: ToolCall };
  /** The top-level state changed. */
  state: { state: AgentStateName; previous: AgentStateName };
  /** A model call failed and will be retried after `delayMs`. */
  retry: { delayMs: number; attempt: number };
  /**
   * Something went wrong that the user should see: a model call given up, a refusal, a hook
   * failure, a listener that threw, or a fault in an actor.
   */
  error: { message: string; source: 'chart' | 'hook' | 'listener' | 'agent' };
  /** The post-tools hook committed the workspace. */
  commit: { sha: string; message: string; files: string[] };
  /** An event changed nothing (malformed, or not accepted in the current state). */
  diagnostic: AgentDiagnostic;
  /** Every action the chart emitted, as pure mode would return it. */
  action: AgentAction;
}

/**
 * The name of one notification.
 *
 * @example
 * const name: AgentNotificationName = 'toolEnd';
 */
export type AgentNotificationName = keyof AgentNotifications;

/**
 * A listener of one notification.
 *
 * @example
 * const listener: AgentListener<'text'> = ({ text }) => process.stdout.write(text);
 */
export type AgentListener<Name extends AgentNotificationName> = (
  payload: AgentNotifications[Name],
) => void;

/**
 * A small typed emitter. A listener that throws is reported as an `error` notification (and, if
 * an `error` listener throws, to `onListenerError`), never allowed to break the agent.
 */
export class NotificationHub {
  readonly #listeners = new Map<AgentNotificationName, Set<(payload: never) => void>>();
  readonly #onListenerError: (error: unknown) => void;

  constructor(onListenerError: (error: unknown) => void) {
    this.#onListenerError = onListenerError;
  }

  on<Name extends AgentNotificationName>(name: Name, listener: AgentListener<Name>): () => void {
    let set = this.#listeners.get(name);
    if (set === undefined) {
      set = new Set();
      this.#listeners.set(name, set);
    }
    set.add(listener);
    return () => set.delete(listener);
  }

  has(name: AgentNotificationName): boolean {
    return (this.#listeners.get(name)?.size ?? 0) > 0;
  }

  emit<Name extends AgentNotificationName>(name: Name, payload: AgentNotifications[Name]): void {
    const set = this.#listeners.get(name);
    if (set === undefined) return;
    for (const listener of set) {
      try {
        (listener as AgentListener<Name>)(payload);
      } catch (error) {
        if (name === 'error') this.#onListenerError(error);
        else
          this.emit('error', {
            message: `a '${name}' listener threw: ${errorMessage(error)}`,
            source: 'listener',
          });
      }
    }
  }
}

/**
 * Turns every action the chart emits into the agent's notifications: the action itself, and
 * the named notification it stands for.
 *
 * @example
 * notifyActions(actor, hub);
 */
export function notifyActions(actor: Actor<AgentMachine>, hub: NotificationHub): void {
  actor.on('*', (action) => {
    hub.emit('action', action);
    switch (action.type) {
      case 'DisplayMessage':
        return hub.emit('text', { text: action.text });
      case 'DisplayError':
        return hub.emit('error', { message: action.message, source: 'chart' });
      case 'ExecuteTools':
        for (const call of action.calls) hub.emit('toolStart', { call });
        return;
      case 'RequestApproval':
        return hub.emit('approvalRequest', { call: action.call });
      case 'ScheduleRetry':
        return hub.emit('retry', { delayMs: action.delayMs, attempt: action.attempt });
      default:
        return;
    }
  });
}
