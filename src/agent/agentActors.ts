/**
 * The invoked actors an agent runs with: the package's own (Anthropic streaming, the tool
 * registry, git auto-commit, a retry timer), built for this agent, or the caller's replacements.
 * `createAgent` hands them to `agentMachine.provide`.
 */
import Anthropic, { type ClientOptions } from '@anthropic-ai/sdk';
import type { AnyActorLogic } from 'xstate';
import type { InFlightWork } from '../actors/inFlightWork.js';
import type { BeforeEffect } from '../machine/actorInputs.js';
import { createLlmActor } from '../actors/llmActor.js';
import { createGitAutoCommitActor, noPostToolsHook } from '../actors/postToolsHookActor.js';
import { createRetryTimerActor, createToolGraceTimerActor } from '../actors/timerActors.js';
import { createToolActor } from '../actors/toolActor.js';
import type { ToolRegistry } from '../actors/tools/createToolRegistry.js';
import type { NotificationHub } from './agentNotifications.js';

/**
 * Replacements for the chart's invoked actors, as actor logic (for example `fromCallback`). Each
 * receives the chart's input for it (`LlmActorInput`, `ToolActorInput`, `PostToolsHookInput`,
 * `RetryTimerInput`, `ToolGraceTimerInput`) and answers with the chart's events through `sendBack`.
 *
 * @example
 * const actors: AgentActors = { retryTimer: createRetryTimerActor({ scale: 0.01 }) };
 */
export interface AgentActors {
  llm?: AnyActorLogic;
  tool?: AnyActorLogic;
  postToolsHook?: AnyActorLogic;
  retryTimer?: AnyActorLogic;
  toolGraceTimer?: AnyActorLogic;
}

/** What the package's own actors are built from. */
export interface AgentActorSettings {
  workspace: string;
  registry: ToolRegistry;
  inFlight: InFlightWork;
  hub: NotificationHub;
  anthropic: Anthropic | ClientOptions | undefined;
  autoCommit: boolean | undefined;
  toolTimeoutMs: number | undefined;
  retryDelayScale: number | undefined;
  /** Awaited before each side effect starts (a durable session records it first). */
  beforeStart?: BeforeEffect;
}

/**
 * The five actors of one agent: each replacement given, else the package's own for this agent.
 *
 * @example
 * const machine = agentMachine.provide({ actors: agentActors(options.actors, settings) });
 */
export function agentActors(
  given: AgentActors | undefined,
  settings: AgentActorSettings,
): Required<AgentActors> {
  const { workspace, registry, inFlight, hub } = settings;
  const gate = settings.beforeStart === undefined ? {} : { beforeStart: settings.beforeStart };
  return {
    llm: given?.llm ?? createLlmActor({ client: clientFor(settings.anthropic), inFlight, ...gate }),
    tool:
      given?.tool ??
      createToolActor({
        registry,
        workspace,
        inFlight,
        ...gate,
        onDiagnostic: (diagnostic) => hub.emit('diagnostic', diagnostic),
        ...(settings.toolTimeoutMs === undefined ? {} : { timeoutMs: settings.toolTimeoutMs }),
      }),
    postToolsHook:
      given?.postToolsHook ??
      (settings.autoCommit === false
        ? noPostToolsHook
        : createGitAutoCommitActor({
            workspace,
            inFlight,
            ...gate,
            isMutating: (name) => registry.isMutating(name),
            onResult: (result) => {
              if (result.commit) hub.emit('commit', result.commit);
              if (result.error) {
                hub.emit('error', {
                  message: `auto-commit failed: ${result.error}`,
                  source: 'hook',
                });
              }
            },
          })),
    retryTimer:
      given?.retryTimer ?? createRetryTimerActor({ scale: settings.retryDelayScale ?? 1 }),
    toolGraceTimer: given?.toolGraceTimer ?? createToolGraceTimerActor(),
  };
}

/** The model client: the one given, or a factory that builds one on the first call. */
function clientFor(
  anthropic: Anthropic | ClientOptions | undefined,
): Anthropic | (() => Anthropic) {
  return anthropic instanceof Anthropic
    ? anthropic
    : () => new Anthropic({ ...anthropic, maxRetries: 0 });
}
