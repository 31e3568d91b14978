/**
 * `agent-statechart run`: an interactive terminal agent. It talks to Claude when
 * `ANTHROPIC_API_KEY` is set and to the offline scripted model otherwise; it streams text, shows
 * tool calls with their status and the current state, and asks before tools that need approval.
 * Piped input works too: each line is a message, and an approval takes the next line as answer.
 *
 * Ctrl-C interrupts a running turn; at an approval question it also withdraws the question (the
 * call is answered as interrupted), so the next line typed is a message again, not an answer. At
 * the idle prompt it says how to quit, and a second Ctrl-C there quits.
 */
import { resolve } from 'node:path';
import type { Agent } from '../agent/agent.js';
import { createAgent } from '../agent/createAgent.js';
import { resolveWorkspaceRoot } from '../actors/tools/resolveInWorkspace.js';
import { PERMISSION_MODES, type PermissionMode, type ToolCall } from '../machine/types.js';
import { startMessagesApiServer } from '../testing/messagesApiServer.js';
import { type LineRead, LineReader } from './lineReader.js';
import { offlineModel } from './offlineModel.js';
import { showProgress } from './showProgress.js';

const MODES: readonly PermissionMode[] = PERMISSION_MODES;

/** What each mode lets through, for the confirmation of `/mode`. */
const MODE_MEANINGS: Record<PermissionMode, string> = {
  plan: 'read-only: tools that change files or run commands are refused',
  default: 'tools that change files or run commands ask first',
  acceptEdits: 'file edits run without asking; commands ask first',
  bypassPermissions: 'every tool runs without asking',
};

/** The label of the offline scripted model's replies (Claude's are labelled `claude`). */
export const OFFLINE_MODEL_LABEL = 'offline model';

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
 * Runs the interactive agent until the input ends, the user types `/quit`, or presses Ctrl-C
 * twice at the prompt. A workspace that is not an existing directory is refused before anything
 * starts.
 *
 * @example
 * process.exitCode = await runCommand(process.argv.slice(3));
 */
export async function runCommand(
  argv: string[],
  io: RunIo = { input: process.stdin, output: process.stdout, env: process.env },
): Promise<number> {
  const options = parseRunOptions(argv);
  await resolveWorkspaceRoot(options.workspace);
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
    }\ntype a message; /mode <mode>, /quit; Ctrl-C interrupts a turn, twice at the prompt quits\n`,
  );
  showProgress(agent, offline ? OFFLINE_MODEL_LABEL : 'claude', write);

  const reader = new LineReader(io.input);
  // What the user is being asked right now decides what Ctrl-C means.
  let asking: 'message' | 'approval' | 'nothing' = 'nothing';
  let quitOnCtrlC = false;
  const ask = async (prompt: string, what: 'message' | 'approval'): Promise<LineRead> => {
    write(prompt);
    asking = what;
    try {
      return await reader.read();
    } finally {
      asking = 'nothing';
    }
  };
  const onCtrlC = () => {
    if (asking === 'message') {
      if (quitOnCtrlC) {
        write('\n');
        reader.cancel();
      } else {
        write('\n(to quit, press Ctrl-C again or type /quit)\nyou> ');
      }
      quitOnCtrlC = true;
      return;
    }
    if (asking === 'approval') reader.cancel();
    if (agent.state !== 'WaitingForUserInput') {
      write('\n  interrupted by Ctrl-C\n');
      agent.interrupt();
    }
  };
  process.on('SIGINT', onCtrlC);

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
  const askApproval = (call: ToolCall) =>
    ask(`allow ${call.name} ${JSON.stringify(call.input)}? [y]es / [n]o / [a]lways `, 'approval');
  try {
    for (;;) {
      const read = await ask('\nyou> ', 'message');
      if (read.kind !== 'line') break;
      quitOnCtrlC = false;
      const line = read.text.trim();
      if (line === '/quit') break;
      if (line === '') continue;
      const mode = /^\/mode(?:\s+(\S+))?$/.exec(line);
      if (mode !== null) {
        write(`${changeMode(agent, mode[1])}\n`);
        continue;
      }
      agent.send(read.text);
      await untilIdleAnswering(agent, approvals, askApproval, changed);
    }
  } finally {
    process.off('SIGINT', onCtrlC);
    reader.close();
    await agent.shutdown();
    await server?.close();
  }
  return 0;
}

/** Sets the permission mode `/mode` named and says what it now is. */
function changeMode(agent: Agent, requested: string | undefined): string {
  if (requested === undefined || !(MODES as string[]).includes(requested)) {
    return `modes: ${MODES.join(', ')} (now ${agent.context.permissionMode})`;
  }
  agent.setPermissionMode(requested as PermissionMode);
  const mode = agent.context.permissionMode;
  return mode === requested
    ? `mode ${mode}: ${MODE_MEANINGS[mode]}`
    : `the mode could not be changed now; it is still ${mode}`;
}

/**
 * Waits for the turn to end, asking the user about each tool call that needs approval. A
 * cancelled question (Ctrl-C, which also interrupts the turn) withdraws the others too: the
 * interrupt answers every open call.
 */
async function untilIdleAnswering(
  agent: Agent,
  approvals: ToolCall[],
  askApproval: (call: ToolCall) => Promise<LineRead>,
  changed: () => Promise<void>,
): Promise<void> {
  for (;;) {
    const call = approvals.shift();
    if (call !== undefined) {
      const read = await askApproval(call);
      if (read.kind === 'cancelled') {
        approvals.length = 0;
        continue;
      }
      const answer = read.kind === 'line' ? read.text.trim().toLowerCase() : '';
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
