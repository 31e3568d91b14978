/**
 * The chart's states by name: Loom's seven at the top level, and the waits nested inside them.
 */

/**
 * The seven top-level states in the order a turn usually meets them (the names of Loom, the
 * agent design the chart comes from).
 *
 * @example
 * for (const state of AGENT_STATE_NAMES) console.log(state);
 */
export const AGENT_STATE_NAMES = [
  'WaitingForUserInput',
  'CallingLlm',
  'ProcessingLlmResponse',
  'ExecutingTools',
  'PostToolsHook',
  'Error',
  'ShuttingDown',
] as const;

/** One of the seven top-level states ({@link AGENT_STATE_NAMES}). */
export type AgentStateName = (typeof AGENT_STATE_NAMES)[number];

/**
 * The states nested inside `WaitingForUserInput`: `Ready` takes input; `SettlingCancelledCalls`
 * waits (within the grace period) for the tool calls an interrupt aborted to report how they
 * ended, and queues input meanwhile; `CheckingPrompt` waits for the `userPromptSubmit` hook on
 * the prompt at the head of the queue; `CheckingCompaction` and `Compacting` compact the
 * transcript a `Compact` event asked for (as in `CallingLlm`), and queue input meanwhile.
 */
export const WAITING_SUBSTATES = [
  'Ready',
  'SettlingCancelledCalls',
  'CheckingPrompt',
  'CheckingCompaction',
  'Compacting',
] as const;

/**
 * The states nested inside `CallingLlm`: `Sizing` decides at once whether the request must be
 * compacted first; `CheckingCompaction` waits for the `preCompact` hook; `Compacting` waits for
 * the model's summary of the older part of the transcript; `Streaming` streams the request.
 */
export const CALLING_SUBSTATES = [
  'Sizing',
  'CheckingCompaction',
  'Compacting',
  'Streaming',
] as const;

/**
 * The states nested inside `ProcessingLlmResponse`: `Deciding` routes the response at once (to
 * the tools, the next model call or the end of the turn); `CheckingStop` waits for the `stop`
 * hook on a response that would end the turn.
 */
export const PROCESSING_SUBSTATES = ['Deciding', 'CheckingStop'] as const;

/**
 * The regions of `ExecutingTools`, beside the calls it runs: each waits or not. `Hooks` runs
 * while a call waits for its `preToolUse` or `postToolUse` hook; `Approvals` waits while a call
 * needs a `ToolApproval`; `Subagents` runs while a task call waits for its subagent; `Questions`,
 * while an `ask_user` call needs a `UserAnswer`.
 */
export const EXECUTING_REGIONS = ['Hooks', 'Approvals', 'Subagents', 'Questions'] as const;

/** Where a region of `ExecutingTools` stands: nothing to wait for, or waiting (`Hooks`: running). */
export type RegionState = 'Idle' | 'Waiting' | 'Running';

/**
 * Where the chart is, as XState's `snapshot.value` says it: a top-level name, or a top-level name
 * with the state nested inside it (for `ExecutingTools`, its regions' states).
 *
 * @example
 * const settling: AgentStateValue = { WaitingForUserInput: 'SettlingCancelledCalls' };
 * const stopping: AgentStateValue = { ProcessingLlmResponse: 'CheckingStop' };
 * const compacting: AgentStateValue = { CallingLlm: 'Compacting' };
 * const asking: AgentStateValue = { ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Waiting' } };
 */
export type AgentStateValue =
  | Exclude<
      AgentStateName,
      'WaitingForUserInput' | 'CallingLlm' | 'ProcessingLlmResponse' | 'ExecutingTools'
    >
  | { WaitingForUserInput: (typeof WAITING_SUBSTATES)[number] }
  | { CallingLlm: (typeof CALLING_SUBSTATES)[number] }
  | { ProcessingLlmResponse: (typeof PROCESSING_SUBSTATES)[number] }
  | {
      ExecutingTools: {
        Hooks: 'Idle' | 'Running';
        Approvals: 'Idle' | 'Waiting';
        Subagents: 'Idle' | 'Running';
        Questions: 'Idle' | 'Waiting';
      };
    };

/**
 * The top-level state of a state value.
 *
 * @example
 * topStateOf({ WaitingForUserInput: 'Ready' }); // 'WaitingForUserInput'
 */
export function topStateOf(value: AgentStateValue | AgentStateName): AgentStateName {
  return typeof value === 'string' ? value : (Object.keys(value)[0] as AgentStateName);
}

/**
 * A state value as readable paths, for messages and logs: one path, or, for a state with
 * regions, the state with each region's path.
 *
 * @example
 * describeStateValue({ WaitingForUserInput: 'SettlingCancelledCalls' }); // 'WaitingForUserInput.SettlingCancelledCalls'
 * describeStateValue({ ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Waiting' } });
 * // 'ExecutingTools (Hooks.Idle, Approvals.Idle, Subagents.Idle, Questions.Waiting)'
 */
export function describeStateValue(value: AgentStateValue | AgentStateName): string {
  if (typeof value === 'string') return value;
  const [top, inner] = Object.entries(value)[0] as [string, string | Record<string, string>];
  if (typeof inner === 'string') return `${top}.${inner}`;
  const regions = Object.entries(inner).map(([region, state]) => `${region}.${state}`);
  return `${top} (${regions.join(', ')})`;
}
