/**
 * The turn the crash test and the recorder test run, with everything a session log must keep
 * right: streamed text, a retried 529, two parallel tool calls (one mutating, appending a line to
 * a side file, so a second run would show; one read-only), an approval, the post-tools hook, user
 * input queued in the middle of a stream, and an interrupt in the middle of another, after which
 * the queued input starts a second turn.
 *
 * Everything is decided by what the agent holds, not by timing, so a process that resumes the
 * session after a crash does what the first one would have: the model answers by the
 * conversation, and the person sends the second input and interrupts at the first text of the
 * calls they do it in, unless the session already holds what they did.
 */
import { execFile } from 'node:child_process';
import { appendFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { z } from 'zod';
import { type Agent, defineTool, type Tool } from '../../../src/index.js';
import { overloaded, reply, type ScriptFunction } from '../../../src/testing/index.js';

export const INPUT = 'Note down milk, then read my notes.';
/** Sent while the model streams its first answer to INPUT; it waits for the turn to end. */
export const SECOND = 'Thanks. Anything else?';
/** The text before the interrupt: the first piece the model streams after the tools. */
export const KEPT_TEXT = 'All done';

/** A model that answers by the conversation, so a request sent again gets the same answer. */
export function noteModel(): ScriptFunction {
  let overloadedOnce = false;
  return (request) => {
    const last = request.messages.at(-1)?.content;
    if (last === INPUT) {
      if (!overloadedOnce) {
        overloadedOnce = true;
        return overloaded();
      }
      return reply(
        [
          { type: 'text', text: 'I will note it down and read your notes.' },
          { type: 'tool_use', id: 'toolu_append', name: 'append_side', input: { line: 'milk' } },
          { type: 'tool_use', id: 'toolu_read', name: 'read_notes', input: {} },
        ],
        { textChunkSize: 6 },
      );
    }
    if (last === SECOND) return reply('Nothing else: milk is noted.', { textChunkSize: 8 });
    // After the tools; interrupted at its first piece (`KEPT_TEXT`, eight characters).
    return reply('All done: milk is noted, and your notes say to remember it.', {
      textChunkSize: 8,
    });
  };
}

/** The two tools: `append_side` appends a line to `sideFile`; `read_notes` reads notes.txt. */
export function noteTools(sideFile: string): Tool[] {
  return [
    defineTool({
      name: 'append_side',
      description:
        'Appends a line to the side file (each call is one line: duplicates are countable).',
      input: z.object({ line: z.string() }),
      mutating: true,
      execute: async ({ line }) => {
        await appendFile(sideFile, `${line}\n`);
        return `appended ${line}`;
      },
    }),
    defineTool({
      name: 'read_notes',
      description: 'Reads notes.txt.',
      input: z.object({}),
      mutating: false,
      execute: async (_input, { workspace }) => readFile(join(workspace, 'notes.txt'), 'utf8'),
    }),
  ];
}

/**
 * The person at the agent: approves every call, sends SECOND at the first text of the answer to
 * INPUT unless the session holds it already, and interrupts at the first text of the answer to
 * the tool results.
 */
export function actAsThePerson(agent: Agent): void {
  agent.on('approvalRequest', ({ call }) => agent.approve(call.id));
  agent.on('text', () => {
    const { messages, queue } = agent.context;
    const last = messages.at(-1);
    const holdsSecond = [...messages, ...queue].some((message) => message.content === SECOND);
    if (last?.content === INPUT && !holdsSecond) agent.send(SECOND);
    const answersTools =
      last?.role === 'user' &&
      Array.isArray(last.content) &&
      last.content.every((block) => block.type === 'tool_result');
    if (answersTools) agent.interrupt();
  });
}

/**
 * Makes `workspace`: a git repository (the post-tools hook commits there) holding notes.txt.
 * Returns the side file the `append_side` tool writes to.
 */
export async function noteWorkspace(workspace: string): Promise<string> {
  const run = promisify(execFile);
  await run('git', ['init', '-q', workspace]);
  await writeFile(join(workspace, 'notes.txt'), 'remember the milk\n');
  for (const args of [
    ['config', 'user.name', 'Test'],
    ['config', 'user.email', 'test@example.com'],
    ['add', '-A'],
    ['commit', '-qm', 'initial'],
  ]) {
    await run('git', args, { cwd: workspace });
  }
  return join(workspace, 'side.txt');
}
