/**
 * The invoked actors an agent runs with: the package's own (Anthropic streaming, the tool
 * registry, git auto-commit, the timers), built for this agent, or the caller's replacements,
 * each behind the boundary that turns a throw into the chart's event for it. `createAgent` runs
 * them behind the shared chart's stand-ins (`registerAgentActors`), or, when the caller replaced
 * any, hands them to `agentMachine.provide`.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ClientOptions } from '@anthropic-ai/sdk';
import type { AnyActorLogic } from 'xstate';
import {
  type ActorFailureHandler,
  checkActorLogic,
  createGitAutoCommitActor,
  createLlmActor,
  createRetryTimerActor,
  createToolActor,
  createToolGraceTimerActor,
  createHookActor,
  type InFlightWork,
  llmClientFor,
  type LlmTransportChoice,
  noPostToolsHook,
  type AgentHooks,
  type ToolRegistry,
  withFailureBoundary,
} from '../actors/index.js';
import {
  AGENT_ACTOR_NAMES,
  type AgentActorName,
  AgentStatechartError,
  type BeforeEffect,
  type SubagentActorInput,
} from '../machine/index.js';
import type { Agent } from './agent.js';
import type { NotificationHub } from './agentNotifications.js';
import { createSubagentActor, type SubagentChildren } from './subagentActor.js';

/**
 * Replacements for the chart's invoked actors, as actor logic (for example `fromCallback`). Each
 * receives the chart's input for it (`LlmActorInput`, `ToolActorInput`, `PostToolsHookInput`,
 * `RetryTimerInput`, `ToolGraceTimerInput`, `HookInput`, `SubagentActorInput`) and answers with the chart's events through
 * `sendBack`, its failures included (an `LlmError`, an error `ToolCompleted`, a
 * `PostToolsHookCompleted` with `error`). One that throws anyway is reported as a diagnostic
 * (`ACTOR_FAILED`) and the chart is given the event that stands for the failure.
 *
 * @example
 * const actors: AgentActors = { retryTimer: createRetryTimerActor({ scale: 0.01 }) };
 */
export type AgentActors = Partial<Record<AgentActorName, AnyActorLogic>>;

/** What the package's own actors are built from. */
export interface AgentActorSettings {
  workspace: string;
  registry: ToolRegistry;
  inFlight: InFlightWork;
  hub: NotificationHub;
  anthropic: Anthropic | ClientOptions | undefined;
  transport: LlmTransportChoice | undefined;
  autoCommit: boolean | undefined;
  toolTimeoutMs: number | undefined;
  retryDelayScale: number | undefined;
  /** The caller's hooks, how long each may take, and the stored session they run for. */
  hooks?: AgentHooks | undefined;
  sessionId?: string | undefined;
  hookTimeoutMs?: number | undefined;
  /** Awaited before each side effect starts (a durable session records it first). */
  beforeStart?: BeforeEffect;
  /** Told when an actor threw instead of answering: gives the chart the event for it. */
  onFailure: ActorFailureHandler;
  /** Starts the child agent of a task call, and where the running ones are kept. */
  startSubagent: (input: SubagentActorInput) => Agent;
  children: SubagentChildren;
}

/**
 * Throws `INVALID_OPTION` for a replacement that is not actor logic, saying what is expected:
 * checked when the agent is created, not when the chart first starts that actor.
 *
 * @example
 * checkAgentActors({ postToolsHook: fromCallback(myHook) });
 */
export function checkAgentActors(given: AgentActors | undefined): void {
  if (given === undefined) return;
  for (const [name, logic] of Object.entries(given)) {
    if (!(AGENT_ACTOR_NAMES as readonly string[]).includes(name)) {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `actors.${name} is not one of the chart's actors (${AGENT_ACTOR_NAMES.join(', ')})`,
      );
    }
    if (logic !== undefined) checkActorLogic(name as AgentActorName, logic);
  }
}

/**
 * The actors of one agent: each replacement given, else the package's own for this agent,
 * each behind its failure boundary.
 *
 * @example
 * const machine = agentMachine.provide({ actors: agentActors(options.actors, settings) });
 */
export function agentActors(
  given: AgentActors | undefined,
  settings: AgentActorSettings,
): Record<AgentActorName, AnyActorLogic> {
  const { workspace, registry, inFlight, hub, beforeStart } = settings;
  const gate = beforeStart === undefined ? {} : { beforeStart };
  const own = (name: AgentActorName): AnyActorLogic => {
    switch (name) {
      case 'llm':
        return createLlmActor({
          client: llmClientFor(settings.anthropic, settings.transport),
          inFlight,
          ...gate,
        });
      case 'tool':
        return createToolActor({
          registry,
          workspace,
          inFlight,
          ...gate,
          onDiagnostic: (diagnostic) => hub.emit('diagnostic', diagnostic),
          ...(settings.toolTimeoutMs === undefined ? {} : { timeoutMs: settings.toolTimeoutMs }),
        });
      case 'postToolsHook':
        return settings.autoCommit === false
          ? noPostToolsHook
          : createGitAutoCommitActor({
              workspace,
              inFlight,
              ...gate,
              isMutating: (toolName) => registry.isMutating(toolName),
              onResult: (result) => {
                if (result.commit) hub.emit('commit', result.commit);
              },
            });
      case 'retryTimer':
        return createRetryTimerActor({ scale: settings.retryDelayScale ?? 1, ...gate });
      case 'toolGraceTimer':
        return createToolGraceTimerActor();
      case 'hook':
        return createHookActor({
          hooks: settings.hooks ?? {},
          inFlight,
          ...(settings.sessionId === undefined ? {} : { sessionId: settings.sessionId }),
          ...(settings.hookTimeoutMs === undefined ? {} : { timeoutMs: settings.hookTimeoutMs }),
        });
      case 'subagent':
        return createSubagentActor({
          startChild: settings.startSubagent,
          hub,
          children: settings.children,
          inFlight,
          ...gate,
        });
    }
  };
  const actors = {} as Record<AgentActorName, AnyActorLogic>;
  for (const name of AGENT_ACTOR_NAMES) {
    actors[name] = withFailureBoundary(name, given?.[name] ?? own(name), settings.onFailure);
  }
  return actors;
}
