/**
 * agent-statechart: an LLM coding agent's loop as one explicit XState v5 statechart.
 *
 * - `agentMachine`: the chart (seven states, named guards, invoked actors declared by name);
 * - `AgentCore`: pure mode, `handleEvent(event) → actions`, no I/O, deterministic;
 * - everything the chart speaks: messages, events, actions, config.
 *
 * @packageDocumentation
 */
export * from './machine/index.js';
