/**
 * `agent-statechart demo`: a scripted session that shows durability. It passes through all seven
 * states — a retried 529, two tool calls, a real git auto-commit — in a stored session (SQLite),
 * run by two processes: the first is killed with SIGKILL while its tools run, the second opens the
 * session from the store and finishes the turn, saying what it ran again and what it told the
 * model was interrupted. The real Anthropic SDK talks to a local Messages API server playing a
 * scripted model, so it runs offline with no key.
 */
import { execFile, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import {
  type InspectionRecorder,
  inspectStoredSession,
  type StoredSessionView,
} from '../inspect/index.js';
import type { AgentStateName, Message } from '../machine/index.js';
import { newSessionHeader } from '../persistence/index.js';
import {
  type MessagesRequestBody,
  overloaded,
  reply,
  type ScriptedTurn,
  startMessagesApiServer,
} from '../testing/index.js';
import type { DemoProcessMessage, DemoProcessSettings } from './demoProcess.js';
import { describeContent } from './describeSession.js';
import { cliChartConfig, cliSessionMetadata } from './sessionConfig.js';
import { openSessionStore } from './workspaceSessionStore.js';

const exec = promisify(execFile);

/** The demo's session, in the workspace's default store. */
const SESSION_ID = 'demo';

const INPUT = 'Change the greeting in hello.txt to "Hi".';

/** The tools the first process is killed in the middle of. */
const KILLED_DURING = ['read_file', 'edit_file'];

/**
 * Options of {@link runDemo}.
 *
 * @example
 * await runDemo({ print: console.log, keepWorkspace: true });
 */
export interface DemoOptions {
  /** Where the demo's lines go. */
  print: (line: string) => void;
  /** Keep the temporary git workspace (and its stored session) instead of deleting it. */
  keepWorkspace?: boolean;
  /** Pause between streamed SSE events, so a watcher can follow along. Default 15 ms. */
  eventDelayMs?: number;
  /** Show the stored session in this recorder (an inspector's), following it as it is stored. */
  inspector?: InspectionRecorder;
}

/**
 * What a demo run did, for tests.
 *
 * @example
 * const { states, commits } = await runDemo({ print: () => {} });
 */
export interface DemoResult {
  /** Every state the two processes were in, in order. */
  states: AgentStateName[];
  /** The transcript the second process ended with. */
  messages: Message[];
  commits: string[];
  workspace: string;
  /** The signal that ended the first process (`SIGKILL`). */
  killedBy: NodeJS.Signals | null;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec('git', args, { cwd });
  return stdout.trim();
}

/**
 * Runs the scripted session in two processes and prints it.
 *
 * @example
 * const result = await runDemo({ print: (line) => console.log(line) });
 * console.log(result.killedBy); // 'SIGKILL'
 */
export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const { print } = options;
  const workspace = await mkdtemp(join(tmpdir(), 'agent-statechart-demo-'));
  await writeFile(join(workspace, 'hello.txt'), 'Hello, world\n');
  await git(workspace, 'init', '-q');
  await git(workspace, 'add', '-A');
  await git(
    workspace,
    '-c',
    'user.name=demo',
    '-c',
    'user.email=demo@agent-statechart.invalid',
    'commit',
    '-qm',
    'Initial commit',
  );
  const { store, path } = openSessionStore({ workspace });
  const server = await startMessagesApiServer({
    eventDelayMs: options.eventDelayMs ?? 15,
    script: demoModel(),
  });
  let view: StoredSessionView | undefined;
  try {
    const metadata = cliSessionMetadata(workspace, 'acceptEdits');
    await store.create(newSessionHeader(SESSION_ID, Date.now(), metadata));
    if (options.inspector !== undefined) {
      view = await inspectStoredSession(options.inspector, store, SESSION_ID, {
        config: cliChartConfig(metadata),
        follow: true,
        followIntervalMs: 100,
      });
    }
    print(`workspace ${workspace}`);
    print(`session   ${SESSION_ID}, stored in ${path}`);
    print('');
    const settings = {
      workspace,
      database: path,
      sessionId: SESSION_ID,
      baseURL: server.baseURL,
    };
    print('process 1 runs the turn; its tools take a while, so it can be killed while they run');
    const first = await runDemoProcess(
      { ...settings, label: 'process 1', input: INPUT, toolDelayMs: 30_000 },
      print,
      KILLED_DURING,
    );
    print(
      `killed    process 1 (pid ${first.pid}) with ${first.signal ?? 'no signal'} while ${KILLED_DURING.join(' and ')} were running`,
    );
    print('');
    const second = await runDemoProcess({ ...settings, label: 'process 2', toolDelayMs: 0 }, print);
    await view?.refresh();

    const states = [...first.states, ...second.states];
    const messages = second.messages;
    print('');
    print(`states visited: ${[...new Set(states)].join(', ')}`);
    print('');
    print('transcript:');
    for (const message of messages) print(`  ${message.role}: ${describeContent(message)}`);
    const commits = (await git(workspace, 'log', '--format=%h %s')).split('\n');
    print('');
    print('commits:');
    for (const commit of commits) print(`  ${commit}`);
    if (options.keepWorkspace) {
      print(`\nworkspace kept at ${workspace}; its session:`);
      print(`  npx agent-statechart sessions show ${SESSION_ID} --workspace ${workspace}`);
      print(`  npx agent-statechart inspect --session ${SESSION_ID} --workspace ${workspace}`);
    }
    return { states, messages, commits, workspace, killedBy: first.signal };
  } finally {
    view?.stop();
    await server.close();
    await store.close();
    if (!options.keepWorkspace) await rm(workspace, { recursive: true, force: true });
  }
}

interface ProcessOutcome {
  pid: number | undefined;
  signal: NodeJS.Signals | null;
  states: AgentStateName[];
  messages: Message[];
}

/**
 * Runs one demo process to its end, relaying what it prints. With `killWhenRunning`, kills it
 * (SIGKILL) once every one of those tools is running.
 */
function runDemoProcess(
  settings: DemoProcessSettings,
  print: (line: string) => void,
  killWhenRunning?: readonly string[],
): Promise<ProcessOutcome> {
  return new Promise((resolve, reject) => {
    const child = forkSibling('demoProcess', [JSON.stringify(settings)]);
    const outcome: ProcessOutcome = { pid: child.pid, signal: null, states: [], messages: [] };
    const running = new Set<string>();
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('message', (message: DemoProcessMessage) => {
      switch (message.type) {
        case 'print':
          return print(message.line);
        case 'state':
          outcome.states.push(message.state);
          return;
        case 'running':
          running.add(message.tool);
          if (killWhenRunning?.every((tool) => running.has(tool))) child.kill('SIGKILL');
          return;
        case 'finished':
          outcome.messages = message.messages;
          return;
      }
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      outcome.signal = signal;
      const expected = killWhenRunning === undefined ? code === 0 : signal === 'SIGKILL';
      if (expected) resolve(outcome);
      else {
        reject(
          new Error(
            `${settings.label} ended with ${signal ?? `exit code ${code}`}${stderr ? `: ${stderr.trim()}` : ''}`,
          ),
        );
      }
    });
  });
}

/**
 * Starts the module `name` next to this one in a process of its own, with an IPC channel: the
 * built `.js` file under plain Node, or the `.ts` source through tsx when running from source.
 */
function forkSibling(name: string, args: string[]) {
  const self = fileURLToPath(import.meta.url);
  const extension = extname(self);
  const file = join(dirname(self), `${name}${extension}`);
  const execArgv =
    extension === '.ts' ? ['--import', pathToFileURL(createRequire(self).resolve('tsx')).href] : [];
  return fork(file, args, {
    execArgv,
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'json',
  });
}

/**
 * The scripted model, answering by the conversation (so the second process gets the answers the
 * first would have had): the first call fails with a 529; then it reads and edits hello.txt. Told
 * its edit may or may not have taken effect, it goes by what the read (run again on resume, so it
 * shows the file as it is now) says: it edits again only if the edit did not happen.
 */
/** Tool inputs stream in larger pieces than text: the demo stays quick, the text still streams. */
const QUICK_TOOL_INPUT = { jsonChunkSize: 32 };

function demoModel(): (request: MessagesRequestBody) => ScriptedTurn {
  let overloadedOnce = false;
  const editHello = {
    type: 'tool_use' as const,
    name: 'edit_file',
    input: { path: 'hello.txt', old_string: 'Hello', new_string: 'Hi' },
  };
  return (request) => {
    const last = request.messages.at(-1);
    if (typeof last?.content === 'string') {
      if (!overloadedOnce) {
        overloadedOnce = true;
        return overloaded('Overloaded (the demo fails the first call on purpose)');
      }
      return reply(
        [
          { type: 'text', text: 'I will read hello.txt, then change its greeting.' },
          { type: 'tool_use', name: 'read_file', input: { path: 'hello.txt' } },
          editHello,
        ],
        QUICK_TOOL_INPUT,
      );
    }
    const results = JSON.stringify(last?.content ?? '');
    if (!results.includes('may or may not have taken effect')) {
      return reply('Done: hello.txt now says "Hi, world". The change is committed.');
    }
    if (results.includes('Hello, world')) {
      return reply(
        [
          {
            type: 'text',
            text: 'My edit was interrupted; the read shows it did not happen. Editing again.',
          },
          editHello,
        ],
        QUICK_TOOL_INPUT,
      );
    }
    return reply('My edit was interrupted, but the read shows it happened: "Hi, world".');
  };
}
