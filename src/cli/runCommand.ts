/**
 * `agent-statechart run`: an interactive terminal agent. It talks to Claude when
 * `ANTHROPIC_API_KEY` is set and to the offline scripted model otherwise; it streams text, shows
 * tool calls with their status and the current state, and asks before tools that need approval.
 * Piped input works too: each line is a message, and an approval takes the next line as answer.
 */
import { createInterface } from 'node:readline';
import { resolve } from 'node:path';
import type { Agent } from '../agent/agent.js';
import { createAgent } from '../agent/createAgent.js';
import type { PermissionMode, ToolCall } from '../machine/types.js';
import { startMessagesApiServer } from '../testing/messagesApiServer.js';
import { offlineModel } from './offlineModel.js';

const MODES: readonly PermissionMode[] = ['plan', 'default', 'acceptEdits', 'bypassPermissions'];

/**
 * Where `run` reads and writes (the terminal by default; tests pass streams).
 *
 * @example
 * await runCommand(['--workspace', '.'], { input: process.stdin, output: process.stdout, env: process.env });
 */
export interface RunIo {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

/**
 * Parses `run`'s options: `--workspace DIR`, `--mode MODE`, `--model NAME`.
 *
 * @example
 * parseRunOptions(['--mode', 'plan']); // { workspace: process.cwd(), mode: 'plan' }
 */
export function parseRunOptions(argv: string[]): {
  workspace: string;
  mode: PermissionMode;
  model?: string;
} {
  let workspace = process.cwd();
  let mode: PermissionMode = 'default';
  let model: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index];
    const value = argv[index + 1];
    if (flag === '--workspace' || flag === '--mode' || flag === '--model') {
      if (value === undefined) throw new Error(`${flag} needs a value`);
      index++;
      if (flag === '--workspace') workspace = resolve(value);
      else if (flag === '--model') model = value;
      else if ((MODES as string[]).includes(value)) mode = value as PermissionMode;
      else throw new Error(`--mode must be one of ${MODES.join(', ')}; got '${value}'`);
    } else {
      throw new Error(`unknown option '${flag}' for run; expected --workspace, --mode or --model`);
    }
  }
  return model === undefined ? { workspace, mode } : { workspace, mode, model };
}

/**
 * Runs the interactive agent until the input ends or the user types `/quit`.
 *
 * @example
 * process.exitCode = await runCommand(process.argv.slice(3));
 */
export async function runCommand(
  argv: string[],
  io: RunIo = { input: process.stdin, output: process.stdout, env: process.env },
): Promise<number> {
  const options = parseRunOptions(argv);
  const write = (text: string) => io.output.write(text);
  const offline = !io.env.ANTHROPIC_API_KEY;
  const server = offline ? await startMessagesApiServer({ script: offlineModel }) : null;
  const agent = createAgent({
    workspace: options.workspace,
    permissions: { mode: options.mode },
    ...(options.model ? { model: options.model } : {}),
    ...(server ? { anthropic: { baseURL: server.baseURL, apiKey: 'offline' } } : {}),
  });
  write(
    `agent-statechart · workspace ${options.workspace} · mode ${options.mode} · ${
      offline ? 'offline scripted model (no ANTHROPIC_API_KEY)' : 'Claude API'
    }\ntype a message; /mode <mode>, /quit; Ctrl-C interrupts a turn\n`,
  );
  showProgress(agent, write);

  const lines = createInterface({ input: io.input, terminal: false });
  const pending: string[] = [];
  const waiters: ((line: string | null) => void)[] = [];
  let ended = false;
  lines.on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else pending.push(line);
  });
  lines.on('close', () => {
    ended = true;
    for (const waiter of waiters.splice(0)) waiter(null);
  });
  const nextLine = (prompt: string): Promise<string | null> => {
    write(prompt);
    const line = pending.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.resolve(null);
    return new Promise((resolveLine) => waiters.push(resolveLine));
  };
  const onInterrupt = () => {
    if (agent.state !== 'WaitingForUserInput') agent.interrupt();
  };
  process.on('SIGINT', onInterrupt);

  // Approval requests and state changes wake the turn loop, which answers or returns.
  const approvals: ToolCall[] = [];
  let wake: () => void = () => undefined;
  agent.on('approvalRequest', ({ call }) => {
    approvals.push(call);
    wake();
  });
  agent.on('state', () => wake());
  const changed = () =>
    new Promise<void>((resolveChange) => {
      wake = resolveChange;
    });
  try {
    for (;;) {
      const line = await nextLine('\nyou> ');
      if (line === null || line.trim() === '/quit') break;
      if (line.trim() === '') continue;
      const mode = /^\/mode\s+(\S+)/.exec(line.trim())?.[1];
      if (mode !== undefined) {
        if ((MODES as string[]).includes(mode)) agent.setPermissionMode(mode as PermissionMode);
        else write(`modes: ${MODES.join(', ')}\n`);
        continue;
      }
      agent.send(line);
      await untilIdleAnswering(agent, approvals, nextLine, changed);
    }
  } finally {
    process.off('SIGINT', onInterrupt);
    lines.close();
    await agent.shutdown();
    await server?.close();
  }
  return 0;
}

/** Waits for the turn to end, asking the user about each tool call that needs approval. */
async function untilIdleAnswering(
  agent: Agent,
  approvals: ToolCall[],
  nextLine: (prompt: string) => Promise<string | null>,
  changed: () => Promise<void>,
): Promise<void> {
  for (;;) {
    const call = approvals.shift();
    if (call !== undefined) {
      const prompt = `allow ${call.name} ${JSON.stringify(call.input)}? [y]es / [n]o / [a]lways `;
      const answer = (await nextLine(prompt))?.trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') agent.approve(call.id);
      else if (answer === 'a' || answer === 'always') agent.approve(call.id, { remember: true });
      else agent.deny(call.id);
      continue;
    }
    const { context } = agent;
    const idle =
      agent.state === 'ShuttingDown' ||
      (agent.state === 'WaitingForUserInput' && context.queue.length === 0);
    if (idle) return;
    await changed();
  }
}

function showProgress(agent: Agent, write: (text: string) => void): void {
  let streaming = false;
  const endLine = () => {
    if (streaming) write('\n');
    streaming = false;
  };
  agent.on('text', ({ text }) => {
    if (!streaming) write('claude> ');
    streaming = true;
    write(text);
  });
  agent.on('state', ({ state }) => {
    if (state === 'ProcessingLlmResponse') return;
    endLine();
    write(`  [${state}]\n`);
  });
  agent.on('toolStart', ({ call }) => {
    endLine();
    write(`  ⚙ ${call.name} ${JSON.stringify(call.input)}\n`);
  });
  agent.on('toolEnd', ({ call, outcome }) => {
    endLine();
    const detail = outcome.status === 'error' ? `: ${outcome.error.message}` : '';
    write(`  ${outcome.status === 'success' ? '✓' : '✗'} ${call.name}${detail}\n`);
  });
  agent.on('retry', ({ delayMs, attempt }) =>
    write(`  ↻ retrying (attempt ${attempt}) in ${delayMs} ms\n`),
  );
  agent.on('commit', ({ sha, files }) =>
    write(`  ⎇ committed ${sha.slice(0, 7)}: ${files.join(', ')}\n`),
  );
  agent.on('error', ({ message }) => {
    endLine();
    write(`  ! ${message}\n`);
  });
}
