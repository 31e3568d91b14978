/**
 * `agent-statechart demo`: a scripted session in actor mode that passes through all seven
 * states — including a retried 529 and a real git auto-commit — printed as a state trace, the
 * streamed text, the tool calls, the transcript and the commits made. The real Anthropic SDK
 * talks to a local Messages API server playing a scripted model, so it runs offline with no key.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { InspectionEvent } from 'xstate';
import { createAgent } from '../agent/createAgent.js';
import type { AgentStateName, Message } from '../machine/types.js';
import { overloaded, reply } from '../testing/scriptedTurn.js';
import { startMessagesApiServer } from '../testing/messagesApiServer.js';

const exec = promisify(execFile);

/**
 * Options of {@link runDemo}.
 *
 * @example
 * await runDemo({ print: console.log, keepWorkspace: true });
 */
export interface DemoOptions {
  /** Where the demo's lines go. */
  print: (line: string) => void;
  /** Keep the temporary git workspace instead of deleting it at the end. */
  keepWorkspace?: boolean;
  /** Pause between streamed SSE events, so a watcher can follow along. Default 15 ms. */
  eventDelayMs?: number;
  /** Also pass every inspection event to this observer (the inspector page). */
  inspect?: (event: InspectionEvent) => void;
}

/**
 * What a demo run did, for tests.
 *
 * @example
 * const { states, commits } = await runDemo({ print: () => {} });
 */
export interface DemoResult {
  states: AgentStateName[];
  messages: Message[];
  commits: string[];
  workspace: string;
}

async function git(cwd: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec('git', args, { cwd });
  return stdout.trim();
}

/**
 * Runs the scripted session and prints it.
 *
 * @example
 * const result = await runDemo({ print: (line) => console.log(line) });
 * console.log(result.commits.length); // 1
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

  const server = await startMessagesApiServer({
    eventDelayMs: options.eventDelayMs ?? 15,
    script: [
      overloaded('Overloaded (the demo fails the first call on purpose)'),
      reply([
        { type: 'text', text: 'I will read hello.txt, then change its greeting.' },
        { type: 'tool_use', name: 'read_file', input: { path: 'hello.txt' } },
        {
          type: 'tool_use',
          name: 'edit_file',
          input: { path: 'hello.txt', old_string: 'Hello', new_string: 'Hi' },
        },
      ]),
      reply('Done: hello.txt now says "Hi, world". The change is committed.'),
    ],
  });

  const agent = createAgent({
    workspace,
    model: 'claude-demo',
    anthropic: { baseURL: server.baseURL, apiKey: 'offline-demo' },
    ...(options.inspect ? { inspect: options.inspect } : {}),
  });
  const states: AgentStateName[] = [agent.state];
  print(`workspace ${workspace}`);
  print(`state     ${agent.state}`);
  // Streamed text arrives in pieces; show it as one line once the stream moves on.
  let streamed = '';
  const flushText = () => {
    if (streamed.length > 0) print(`  model   ${JSON.stringify(streamed)}`);
    streamed = '';
  };
  agent.on('state', ({ state }) => {
    flushText();
    states.push(state);
    print(`state     ${state}`);
  });
  agent.on('text', ({ text }) => {
    streamed += text;
  });
  agent.on('retry', ({ delayMs, attempt }) =>
    print(`  retry   attempt ${attempt} in ${delayMs} ms`),
  );
  agent.on('error', ({ message }) => print(`  error   ${message}`));
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

  print('user      Change the greeting in hello.txt to "Hi".');
  agent.send('Change the greeting in hello.txt to "Hi".');
  await agent.waitUntilIdle({ timeoutMs: 30_000 });
  await agent.shutdown();
  await server.close();

  const messages = agent.context.messages;
  print('');
  print(`states visited: ${[...new Set(states)].join(', ')}`);
  print('');
  print('transcript:');
  for (const message of messages) print(`  ${message.role}: ${describeContent(message)}`);
  const commits = (await git(workspace, 'log', '--format=%h %s')).split('\n');
  print('');
  print('commits:');
  for (const commit of commits) print(`  ${commit}`);
  if (options.keepWorkspace) print(`\nworkspace kept at ${workspace}`);
  else await rm(workspace, { recursive: true, force: true });
  return { states, messages, commits, workspace };
}

function describeContent(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((block) => {
      switch (block.type) {
        case 'text':
          return JSON.stringify(block.text);
        case 'tool_use':
          return `tool_use ${String(block.name)} ${JSON.stringify(block.input)}`;
        case 'tool_result':
          return `tool_result ${JSON.stringify(block.content)}${block.is_error ? ' (error)' : ''}`;
        default:
          return block.type;
      }
    })
    .join(' · ');
}
