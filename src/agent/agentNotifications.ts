/**
 * What an agent tells its listeners, by name, and the one map from what the chart does to what
 * listeners hear: an agent's handle and the workers' event stream (`agent-statechart/dbos`) both
 * speak this vocabulary, from the same functions.
 */
import type { Actor } from 'xstate';
import {
  type AgentAction,
  type AgentDiagnostic,
  type AgentMachine,
  type AgentStateName,
  type CompactionTrigger,
  errorMessage,
  type LlmCallEnding,
  type Message,
  type QuestionsAsked,
  type ToolCall,
  type ToolOutcome,
  type ToolRun,
} from '../machine/index.js';
import type { McpServerChange } from '../mcp/index.js';
import type { StartupDiagnostic } from './startupDiagnostics.js';

/**
 * The agent's notifications and their payloads.
 *
 * @example
 * agent.on('text', ({ text }) => process.stdout.write(text));
 * agent.on('toolEnd', ({ call, outcome }) => console.log(call.name, outcome.status));
 */
export interface AgentNotifications {
  /**
   * An attempt of a model call starts (`attempt` counts from 1 within the call); its response
   * will go to the transcript at `transcriptIndex`. Text streamed by an earlier attempt that did
   * not end (`llmEnd`) is not in the transcript: drop it.
   */
  llmStart: { attempt: number; transcriptIndex: number };
  /** Streamed model text, as the chart displays it (one piece per display frame). */
  text: { text: string };
  /**
   * The model call whose response goes to `transcriptIndex` ended: `completed` (the text since
   * its `llmStart` is the response's, now in the transcript), `interrupted` (the text so far is
   * kept) or `failed` (its text is dropped).
   */
  llmEnd: LlmCallEnding;
  /**
   * What a completed model call used and cost (`costUsd` is `null` for a model with no price),
   * with the turn's and the session's sums so far.
   */
  usage: Omit<Extract<AgentAction, { type: 'UsageReported' }>, 'type'>;
  /** A tool call started running. */
  toolStart: { call: ToolCall };
  /** A tool call ended: completed, failed, denied, interrupted or cancelled. */
  toolEnd: { call: ToolCall; outcome: ToolOutcome };
  /**
   * A tool call waits for `approve` or `deny`: this agent's, or, with `subagent`, one of a
   * subagent's (the path from this agent's task call down to the agent whose call it is);
   * `approve(call.id)` answers either.
   */
  approvalRequest: { call: ToolCall; subagent?: SubagentRef[] };
  /**
   * Something a subagent did, as its own listeners are told (`notification`), with where it
   * stands: the path of task calls from this agent down to it (`path[0]` is this agent's call).
   * Told of the subagents of tasks that start while a `subagent` listener is on.
   */
  subagent: { path: SubagentRef[]; notification: SubagentNotification };
  /**
   * The model asked the user questions (an `ask_user` call, with `askUser` on): the turn waits
   * for `answer(callId, answers)`, one answer per question in order. Said again when a stored
   * session with questions still open is resumed.
   */
  question: QuestionsAsked;
  /**
   * A prompt started no turn, and the model never saw it: the `userPromptSubmit` hook blocked it,
   * or an interrupt came before the hook decided. `reason` says which.
   */
  promptDropped: { prompt: Message; reason: string };
  /** The turn ended with its final answer in the form it asked for (see `output`). */
  output: { value: unknown };
  /**
   * The model is asked for a summary of the older part of the transcript: `auto` before a request
   * that would pass the compaction threshold, `manual` for `agent.compact()`. The summary is not
   * streamed as `text`; `compacted` or `compactionSkipped` says how it ended (an interrupt ends it
   * with neither, the transcript as it was).
   */
  compacting: { trigger: CompactionTrigger };
  /**
   * The transcript is now the summary (its first message) and the `kept` messages after it; the
   * `summarised` messages before them are gone from it (a session store keeps them in its log).
   * Transcript indices said before this (`llmStart`, `llmEnd`) no longer apply.
   */
  compacted: { trigger: CompactionTrigger; summary: string; summarised: number; kept: number };
  /**
   * A compaction did not happen, and the transcript is as it was: `reason` says why (the
   * `preCompact` hook blocked it, the summary call failed, there was nothing to summarise).
   */
  compactionSkipped: { trigger: CompactionTrigger; reason: string };
  /** The top-level state changed. */
  state: { state: AgentStateName; previous: AgentStateName };
  /** A model call failed and will be retried after `delayMs`. */
  retry: { delayMs: number; attempt: number };
  /**
   * Something went wrong that the user should see: a model call given up, a refusal, a hook
   * failure, a listener that threw, a fault in an actor, or an MCP server that stopped answering.
   */
  error: { message: string; source: 'chart' | 'hook' | 'listener' | 'agent' | 'mcp' };
  /**
   * One of the agent's MCP servers changed: its tools (the model is offered the new list from
   * the next request), or it went down, came back or was given up on.
   */
  mcp: McpServerChange;
  /** The post-tools hook committed the workspace. */
  commit: { sha: string; message: string; files: string[] };
  /**
   * An event changed nothing (malformed, or not accepted in the current state), or, once at
   * start, something a service should log about how the agent runs ({@link StartupDiagnostic}).
   */
  diagnostic: AgentDiagnostic | StartupDiagnostic;
  /** Every action the chart emitted, as pure mode would return it. */
  action: AgentAction;
}

/** The name of one notification. */
export type AgentNotificationName = keyof AgentNotifications;

/**
 * One notification as a value: its payload with its name as `type` (every notification but
 * `action`, whose payload is the chart's action and has a `type` of its own).
 *
 * @example
 * const notification: AgentNotification = { type: 'text', text: 'Hello' };
 */
export type AgentNotification = {
  [Name in Exclude<AgentNotificationName, 'action'>]: { type: Name } & AgentNotifications[Name];
}[Exclude<AgentNotificationName, 'action'>];

/**
 * A subagent in the tree of agents: the task call that started it, and its agent's name.
 *
 * @example
 * const ref: SubagentRef = { callId: 'toolu_1', agent: 'reviewer' };
 */
export interface SubagentRef {
  callId: string;
  agent: string;
}

/**
 * The notifications of a subagent its parent's `subagent` listeners are told of.
 *
 * @example
 * FORWARDED_NOTIFICATIONS.includes('text'); // true
 */
export const FORWARDED_NOTIFICATIONS = [
  'llmStart',
  'text',
  'llmEnd',
  'usage',
  'toolStart',
  'toolEnd',
  'state',
  'retry',
  'error',
  'commit',
  'compacted',
] as const satisfies readonly AgentNotificationName[];

/** One of {@link FORWARDED_NOTIFICATIONS}. */
export type ForwardedNotificationName = (typeof FORWARDED_NOTIFICATIONS)[number];

/**
 * One notification of a subagent, with its name as `type`.
 *
 * @example
 * agent.on('subagent', ({ path, notification }) => {
 *   if (notification.type === 'text') process.stdout.write(`[${path.at(-1)!.agent}] ${notification.text}`);
 * });
 */
export type SubagentNotification = {
  [Name in ForwardedNotificationName]: { type: Name } & AgentNotifications[Name];
}[ForwardedNotificationName];

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
 * Hands on one notification: its name and its payload.
 *
 * @example
 * const announce: Announce = (name, payload) => hub.emit(name, payload);
 */
export type Announce = <Name extends Exclude<AgentNotificationName, 'action'>>(
  name: Name,
  payload: AgentNotifications[Name],
) => void;

/**
 * The notifications an action of the chart stands for, handed to `announce` in order (besides
 * `action`, which every action is).
 *
 * @example
 * notificationsOfAction({ type: 'DisplayMessage', text: 'Hi' }, (name, payload) => log(name, payload));
 * // text { text: 'Hi' }
 */
export function notificationsOfAction(action: AgentAction, announce: Announce): void {
  switch (action.type) {
    case 'DisplayMessage':
      return announce('text', { text: action.text });
    case 'SendLlmRequest':
      return announce('llmStart', {
        attempt: action.attempt,
        transcriptIndex: action.request.messages.length,
      });
    case 'LlmCallEnded':
      return announce('llmEnd', llmEndOf(action));
    case 'UsageReported':
      return announce('usage', {
        model: action.model,
        call: action.call,
        turn: action.turn,
        session: action.session,
      });
    case 'DisplayError':
      return announce('error', { message: action.message, source: action.source ?? 'chart' });
    case 'ExecuteTools':
      for (const call of action.calls) announce('toolStart', { call });
      return;
    case 'StartSubagent':
      return announce('toolStart', { call: action.call });
    case 'RequestApproval':
      return announce('approvalRequest', { call: action.call });
    case 'AskUser':
      return announce('question', { callId: action.callId, questions: action.questions });
    case 'PromptDropped':
      return announce('promptDropped', { prompt: action.prompt, reason: action.reason });
    case 'OutputGiven':
      return announce('output', { value: action.output });
    // The summary call is a model call of its own kind: not an `llmStart`, and its text is not
    // shown (the chart streams none of it).
    case 'SendCompactionRequest':
      return announce('compacting', { trigger: action.trigger });
    case 'Compacted':
      return announce('compacted', {
        trigger: action.trigger,
        summary: action.summary,
        summarised: action.summarised,
        kept: action.kept,
      });
    case 'CompactionSkipped':
      return announce('compactionSkipped', { trigger: action.trigger, reason: action.reason });
    case 'ScheduleRetry':
      return announce('retry', { delayMs: action.delayMs, attempt: action.attempt });
    default:
      return;
  }
}

/**
 * The `llmEnd` payload of how a model call ended.
 *
 * @example
 * llmEndOf(core.context.window.lastCall!); // { status: 'completed', transcriptIndex: 3 }
 */
export function llmEndOf(ending: LlmCallEnding): AgentNotifications['llmEnd'] {
  return { status: ending.status, transcriptIndex: ending.transcriptIndex };
}

/**
 * The `toolEnd` notifications between two versions of a response's tool runs: every call that
 * has come to its outcome since `before`.
 *
 * @example
 * toolEndsBetween(before.context.toolRuns, after.context.toolRuns, (name, payload) => hub.emit(name, payload));
 */
export function toolEndsBetween(
  before: readonly ToolRun[],
  after: readonly ToolRun[],
  announce: Announce,
): void {
  if (before === after) return;
  const was = new Map(before.map((run) => [run.call.id, run.status]));
  for (const run of after) {
    if (run.status === 'done' && was.get(run.call.id) !== 'done' && run.outcome) {
      announce('toolEnd', { call: run.call, outcome: run.outcome });
    }
  }
}

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
 * the named notifications it stands for.
 *
 * @example
 * notifyActions(actor, hub);
 */
export function notifyActions(actor: Actor<AgentMachine>, hub: NotificationHub): void {
  const announce: Announce = (name, payload) => hub.emit(name, payload);
  actor.on('*', (action) => {
    hub.emit('action', action);
    notificationsOfAction(action, announce);
  });
}
