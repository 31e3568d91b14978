/**
 * `docs/state-machine.md` and `docs/state-machine.svg`: the agent's chart drawn from
 * `agentMachine` itself, so the page cannot describe a chart that no longer exists.
 */
import { agentMachine } from '../../src/machine/agentMachine.js';
import { type GraphState, toGraph } from '../../src/diagram/toGraph.js';
import { toMermaid } from '../../src/diagram/toMermaid.js';
import { toSvg } from '../../src/diagram/toSvg.js';
import { toTransitionTable } from '../../src/diagram/toTransitionTable.js';

/**
 * The page and its picture, keyed by path relative to `docs/`.
 *
 * @example
 * const files = await renderStateMachinePage();
 * files.get('state-machine.md'); // '# The state machine …'
 */
export async function renderStateMachinePage(): Promise<Map<string, string>> {
  const graph = toGraph(agentMachine);
  const always = graph.transitions.filter((transition) => transition.trigger === 'always').length;
  const descendants = (state: GraphState): GraphState[] =>
    state.children.flatMap((child) => [child, ...descendants(child)]);
  const nested = graph.root.children.flatMap(descendants);
  const page = `<!-- Generated from src/machine/agentMachine.ts by scripts/generateDocs.ts; do not edit: run \`npx tsx scripts/generateDocs.ts\`. -->

# The state machine

This page is generated from \`agentMachine\`, the one definition that pure mode (\`AgentCore\`) and
actor mode (\`createAgent\`) both run, and a test fails when it drifts from the machine. It shows
${graph.root.children.length} top-level states, ${nested.length} states nested in them,
${graph.transitions.length} transition branches and ${always} eventless (\`always\`) transitions.

Draw it yourself, or any other XState v5 machine:

\`\`\`sh
npx agent-statechart diagram --format mermaid            # also: dot, svg, json
npx agent-statechart diagram --format svg --out chart.svg --machine ./dist/myMachine.js:myMachine
\`\`\`

or from code: \`toMermaid(machine)\`, \`toDot(machine)\`, \`await toSvg(machine)\`, \`toGraph(machine)\`
(see the [API reference](./api/diagram.md)).

## How to read it

- A **label** reads \`event [guard] / actions\`. Guards are the machine's named guards
  (\`retryableError && attemptsLeft\` is XState's \`and([...])\`); actions run in order.
- **\`always\`** marks an eventless transition, taken as soon as its guard holds (dashed in the
  SVG). \`CallingLlm.Sizing\` and \`ProcessingLlmResponse.Deciding\` have only those: one sizes a
  request, the other routes a response, at once.
- **any state** (dashed box) stands for every state: \`ShutdownRequested\` is accepted in all of
  them (a root-level transition), and \`UserInput\` / \`SetPermissionMode\` / \`SetTools\` are
  handled everywhere without changing state (input that arrives during a turn is queued; a new
  tool list reaches the next model request).
- Inside a state: \`entry\` and \`exit\` actions, the actor it invokes (\`invoke llm\`), and the
  events it handles **without leaving** (\`LlmTextDelta / appendStreamedText\`). An invoked actor
  answers with the chart's own events, its failures included, so there are no error transitions.
- A state drawn **inside** another is nested in it, with a filled dot at the one it starts in:
  \`WaitingForUserInput\` is \`Ready\` (input starts a turn), \`SettlingCancelledCalls\` (after an
  interrupt, the tool calls it aborted report how they ended, within the grace period; input is
  queued), \`CheckingPrompt\` (the caller's \`userPromptSubmit\` hook decides on the prompt), or
  \`CheckingCompaction\` and \`Compacting\` (a compaction a \`Compact\` event asked for: the
  caller's \`preCompact\` hook decides, then the model summarises; input is queued);
  \`CallingLlm\` is \`Sizing\` (it decides at once whether the request would pass the compaction
  threshold), \`CheckingCompaction\` and \`Compacting\` (the same two steps, before that request)
  or \`Streaming\` (the request streams); \`ProcessingLlmResponse\` is \`Deciding\` or
  \`CheckingStop\` (the caller's \`stop\` hook decides whether the turn ends). Mermaid, which
  needs a name to be unique, writes the two compaction states with their parent's name in front.
- A state drawn with **dashed regions** runs them at once: while \`ExecutingTools\` runs the
  tool calls of a response, its region \`Hooks\` is \`Running\` as long as a call waits for the
  caller's \`preToolUse\` or \`postToolUse\` hook, \`Approvals\` is \`Waiting\` as long as a call
  waits for a \`ToolApproval\`, \`Subagents\` is \`Running\` as long as a \`task\` call waits for
  its subagent's final answer, and \`Questions\` is \`Waiting\` as long as an \`ask_user\` call
  waits for the user's \`UserAnswer\`; each is \`Idle\` otherwise. \`ExecutingTools\` is left once every call
  has its outcome, wherever its regions stand.
- The filled dot marks the initial state; a double border marks the final state.

## Diagram (Mermaid)

GitHub renders this block; it is the output of \`agent-statechart diagram --format mermaid\`.

\`\`\`mermaid
${toMermaid(graph)}\`\`\`

## Diagram (SVG)

Laid out with ELK and written without a browser (\`agent-statechart diagram --format svg\`).

![The agent statechart: seven states and their transitions](./state-machine.svg)

## Transitions

One row per transition branch, in the order XState tries them: for one event, the first branch
whose guard holds is taken, so "otherwise" means "when the guards above did not hold".

${toTransitionTable(graph)}`;
  return new Map([
    ['state-machine.md', page],
    ['state-machine.svg', await toSvg(graph)],
  ]);
}
