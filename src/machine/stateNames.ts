import type { AgentStateName } from './types.js';

/**
 * The seven top-level states in the order a turn usually meets them (Loom's names).
 *
 * @example
 * for (const state of AGENT_STATE_NAMES) console.log(state);
 * new Set(visited).size === AGENT_STATE_NAMES.length; // every state visited
 */
export const AGENT_STATE_NAMES = Object.freeze([
  'WaitingForUserInput',
  'CallingLlm',
  'ProcessingLlmResponse',
  'ExecutingTools',
  'PostToolsHook',
  'Error',
  'ShuttingDown',
] as const satisfies readonly AgentStateName[]);
