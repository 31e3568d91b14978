/**
 * A reply that repeats a tool_use id, through the real SDK against the local Messages API
 * server, with a real tool: each call is tracked under an id of its own, and every request the
 * agent sends afterwards is one the API accepts.
 */
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import {
  defineTool,
  findTranscriptViolations,
  type Message,
  type ToolResultBlock,
} from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { sessionsClosedAfterEach } from './harness.js';

const startSession = sessionsClosedAfterEach();

const note = (text: string, id: string) =>
  ({ type: 'tool_use', name: 'note', input: { text }, id }) as const;

function results(message: Message | undefined): ToolResultBlock[] {
  if (message === undefined || typeof message.content === 'string') return [];
  return message.content.filter((block): block is ToolResultBlock => block.type === 'tool_result');
}

describe('a reply that repeats a tool_use id', () => {
  it('runs the first call, tells the model about the repeat, and renames an id reused later', async () => {
    const ran: string[] = [];
    const noteTool = defineTool({
      name: 'note',
      description: 'Takes a note',
      input: z.object({ text: z.string() }),
      mutating: false,
      execute: ({ text }) => {
        ran.push(text);
        return `noted ${text}`;
      },
    });
    const session = await startSession(
      [
        reply([note('a', 'toolu_dup'), note('b', 'toolu_dup')]),
        reply('Noted.'),
        reply([note('c', 'toolu_dup')]),
        reply('Noted again.'),
      ],
      { tools: [noteTool], autoCommit: false },
    );
    const { agent, server } = session;
    agent.send('Take notes a and b.');
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    agent.send('And c.');
    await agent.waitUntilIdle({ timeoutMs: 10_000 });

    expect(ran).toEqual(['a', 'c']);
    const bodies = server.requests.map((request) => request.body);
    expect(bodies).toHaveLength(4);
    for (const body of bodies)
      expect(findTranscriptViolations(body.messages as Message[])).toEqual([]);
    expect(results(bodies[1]?.messages.at(-1) as Message)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_dup', content: 'noted a' },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_dup_2',
        content: expect.stringMatching(
          /^not run: this call repeated the tool_use id 'toolu_dup'/,
        ) as string,
        is_error: true,
      },
    ]);
    expect(results(bodies[3]?.messages.at(-1) as Message)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_dup_3', content: 'noted c' },
    ]);
    expect(session.notes.toolStart.map(({ call }) => call.id)).toEqual([
      'toolu_dup',
      'toolu_dup_3',
    ]);
  });
});
