/**
 * One process of the demo (`npm start`): an agent on the demo's stored session. The first process
 * sends the user's message and is killed while its tools run; the second opens the same session
 * and finishes the turn. It talks to the demo through its IPC channel only: every line to print,
 * every state it enters, when its tools are running, and the transcript it ended with.
 *
 * Run by `runDemo` (src/cli/demo.ts): node demoProcess.js '<json settings>'
 */
import { setTimeout as delay } from 'node:timers/promises';
import { type Agent, createAgent } from '../agent/index.js';
import { createBuiltinTools, type Tool } from '../actors/index.js';
import { type AgentStateName, errorMessage, type Message, topStateOf } from '../machine/index.js';
import { createSqliteSessionStore } from '../persistence/index.js';
import { describeResume, watchResume } from './describeResume.js';

/**
 * What the demo tells one of its processes.
 *
 * @example
 * const settings: DemoProcessSettings = { label: 'process 1', workspace, database, sessionId: 'demo', baseURL, toolDelayMs: 10_000, input: 'hi' };
 */
export interface DemoProcessSettings {
  /** How the process introduces itself (`process 1`). */
  label: string;
  workspace: string;
  database: string;
  sessionId: string;
  baseURL: string;
  /** How long each tool call waits before it works: long in the process that is killed. */
  toolDelayMs: number;
  /** The user's message, sent once the session is open (the first process only). */
  input?: string;
}

/**
 * A message from a demo process to the demo.
 *
 * @example
 * const message: DemoProcessMessage = { type: 'running', tool: 'edit_file' };
 */
export type DemoProcessMessage =
  | { type: 'print'; line: string }
  | { type: 'state'; state: AgentStateName }
  | { type: 'running'; tool: string }
  | { type: 'finished'; messages: Message[] };

function tell(message: DemoProcessMessage): Promise<void> {
  return new Promise((resolve) => {
    if (process.send === undefined) resolve();
    else process.send(message, () => resolve());
  });
}

const print = (line: string) => void tell({ type: 'print', line });

/** A built-in tool that says when it is running, then waits `delayMs` before it works. */
function announced(tool: Tool, delayMs: number): Tool {
  return {
    ...tool,
    execute: async (input, context) => {
      await tell({ type: 'running', tool: tool.name });
      if (delayMs > 0) await delay(delayMs, undefined, { signal: context.signal });
      return tool.execute(input, context);
    },
  };
}

/** Prints what the agent does, one line per step, as the demo always has. */
function showDemoProgress(agent: Agent): void {
  // Streamed text arrives in pieces; show it as one line once the stream moves on.
  let streamed = '';
  const flushText = () => {
    if (streamed.length > 0) print(`  model   ${JSON.stringify(streamed)}`);
    streamed = '';
  };
  agent.on('state', ({ state }) => {
    flushText();
    void tell({ type: 'state', state });
    print(`state     ${state}`);
  });
  agent.on('text', ({ text }) => {
    streamed += text;
  });
  agent.on('retry', ({ delayMs, attempt }) =>
    print(`  retry   attempt ${attempt} in ${delayMs} ms`),
  );
  agent.on('toolStart', ({ call }) =>
    print(`  tool    ${call.name} ${JSON.stringify(call.input)}`),
  );
  agent.on('toolEnd', ({ call, outcome }) =>
    print(
      `  tool    ${call.name} → ${outcome.status}${outcome.status === 'error' ? `: ${outcome.error.message}` : ''}`,
    ),
  );
  agent.on('commit', ({ sha, files }) =>
    print(`  commit  ${sha.slice(0, 7)} (${files.join(', ')})`),
  );
}

async function main(settings: DemoProcessSettings): Promise<void> {
  const store = createSqliteSessionStore({ path: settings.database });
  const resumed = watchResume();
  const agent = createAgent({
    workspace: settings.workspace,
    tools: createBuiltinTools().map((tool) => announced(tool, settings.toolDelayMs)),
    permissions: { mode: 'acceptEdits' },
    model: 'claude-demo',
    anthropic: { baseURL: settings.baseURL, apiKey: 'offline-demo' },
    store,
    sessionId: settings.sessionId,
    inspect: resumed.observer,
  });
  agent.on('error', ({ message }) => print(`  error   ${message}`));
  await agent.ready;
  const resume = resumed.result();
  if (resume === undefined) {
    print(`${settings.label} (pid ${process.pid}) opens the session`);
  } else {
    print(
      `${settings.label} (pid ${process.pid}) opens the stored session: it stopped in ${topStateOf(resume.before.value)}`,
    );
    for (const item of describeResume(resume)) print(`  ${item.kind.padEnd(12)} ${item.text}`);
  }
  void tell({ type: 'state', state: agent.state });
  showDemoProgress(agent);
  if (settings.input !== undefined) {
    print(`user      ${settings.input}`);
    agent.send(settings.input);
  }
  await agent.waitUntilIdle({ timeoutMs: 30_000 });
  // The turn is over: end the session (its chart reaches ShuttingDown, and that is stored too).
  await agent.shutdown({ endSession: true });
  await store.close();
  await tell({ type: 'finished', messages: agent.context.messages });
}

main(JSON.parse(process.argv[2] ?? '{}') as DemoProcessSettings).then(
  () => process.disconnect?.(),
  (error: unknown) => {
    process.stderr.write(`${errorMessage(error)}\n`);
    process.exitCode = 1;
    process.disconnect?.();
  },
);
