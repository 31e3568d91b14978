/**
 * agent-statechart: an LLM coding agent's loop as one explicit XState v5 statechart.
 *
 * - `agentMachine`: the chart (seven states, named guards, invoked actors declared by name);
 * - `AgentCore`: pure mode, `handleEvent(event) → actions`, no I/O, deterministic;
 * - `createAgent`: actor mode, with Anthropic streaming, tools, git auto-commit and retries;
 * - `toMermaid`, `toDot`, `toSvg`: diagrams of this or any XState v5 machine;
 * - everything the chart speaks: messages, events, actions, config.
 *
 * @packageDocumentation
 */
export * from './actors/index.js';
export * from './agent/index.js';
export * from './diagram/index.js';
export * from './machine/index.js';
