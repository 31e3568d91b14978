/**
 * Recorded Messages API streams (test/fixtures/anthropic-sse, from the SDK's own test data)
 * replayed verbatim to a real agent: what the provider really sends, end to end.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type ContentBlock,
  findTranscriptViolations,
  type Message,
  type ToolResultBlock,
} from '../../src/index.js';
import { recordedStream, reply } from '../../src/testing/index.js';
import { type Session, startSession } from './harness.js';

const fixtures = join(import.meta.dirname, '../fixtures/anthropic-sse');
const fixture = async (name: string) =>
  recordedStream(await readFile(join(fixtures, name), 'utf8'));

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

function blocks(message: Message | undefined): ContentBlock[] {
  if (message === undefined || typeof message.content === 'string') return [];
  return message.content;
}

async function turn(text: string) {
  session!.agent.send(text);
  await session!.agent.waitUntilIdle({ timeoutMs: 10_000 });
}

describe('recorded streams', () => {
  it('basic_response: streams the text and ends the turn', async () => {
    session = await startSession([await fixture('basic_response.sse')]);
    await turn('hi');
    const last = session.agent.context.messages.at(-1);
    expect(last?.role).toBe('assistant');
    expect(blocks(last).map((block) => block.type)).toEqual(['text']);
    expect(session.notes.text.map((note) => note.text).join('')).toBe(
      (blocks(last)[0] as { text: string }).text,
    );
    expect(session.agent.context.stopReason).toBe('end_turn');
  });

  it('tool_use_response: an unknown tool is answered with an error naming the available ones', async () => {
    session = await startSession([await fixture('tool_use_response.sse'), reply('Sorry.')]);
    await turn('weather in Paris?');
    const body = session.server.requests.at(-1)?.body;
    const results = blocks(body?.messages.at(-1) as Message).filter(
      (block): block is ToolResultBlock => block.type === 'tool_result',
    );
    expect(results).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01NRLabsLyVHZPKxbKvkfSMn',
        content: expect.stringMatching(/^unknown tool 'get_weather'; available: /) as string,
        is_error: true,
      },
    ]);
    const call = blocks(session.agent.context.messages[1]).find(
      (block) => block.type === 'tool_use',
    );
    expect(call).toMatchObject({ name: 'get_weather', input: { location: 'Paris' } });
  });

  it('incomplete_partial_json_response: a tool input cut by max_tokens is an error the model is told about', async () => {
    session = await startSession([
      await fixture('incomplete_partial_json_response.sse'),
      reply('I will write a shorter file.'),
    ]);
    await turn('write the tax guide');
    const body = session.server.requests.at(-1)?.body;
    const [result] = blocks(body?.messages.at(-1)) as ToolResultBlock[];
    expect(result?.is_error).toBe(true);
    expect(result?.content).toMatch(/^invalid tool input: .*make_file.*max_tokens/);
    expect(session.notes.toolStart).toEqual([]);
    expect(findTranscriptViolations(session.agent.context.messages)).toEqual([]);
  });

  it('stream-a-refusal: keeps the thinking block and its signature unchanged and says why the turn ended', async () => {
    session = await startSession([await fixture('stream-a-refusal.sse'), reply('Understood.')]);
    await turn('something');
    const assistant = session.agent.context.messages[1];
    const thinking = blocks(assistant).find((block) => block.type === 'thinking');
    const raw = await readFile(join(fixtures, 'stream-a-refusal.sse'), 'utf8');
    const signature = [...raw.matchAll(/"signature":"([^"]+)"/g)].map((m) => m[1]).join('');
    expect(signature.length).toBeGreaterThan(10);
    expect(thinking).toMatchObject({ type: 'thinking', signature });
    expect(session.notes.error.map((note) => note.message)).toEqual([
      'The model declined to continue (stop_reason: refusal).',
    ]);
    // The next request sends the thinking block back exactly as it came.
    await turn('ok, something else');
    const sent = session.server.requests.at(-1)?.body.messages[1] as Message;
    expect(blocks(sent).find((block) => block.type === 'thinking')).toEqual(thinking);
  });

  it('stream-a-toolrefusal: server-side tool blocks are kept and never executed locally', async () => {
    session = await startSession([await fixture('stream-a-toolrefusal.sse')]);
    await turn('search the web');
    const assistant = session.agent.context.messages[1];
    const types = blocks(assistant).map((block) => block.type);
    expect(types).toContain('server_tool_use');
    expect(types).toContain('web_search_tool_result');
    expect(session.states).not.toContain('ExecutingTools');
    expect(session.notes.toolStart).toEqual([]);
    expect(session.agent.context.stopReason).toBe('refusal');
    expect(findTranscriptViolations(session.agent.context.messages)).toEqual([]);
  });

  it('stream-b-fallback: a long text reply arrives whole', async () => {
    session = await startSession([await fixture('stream-b-fallback.sse')]);
    await turn('explain eclipses');
    const [text] = blocks(session.agent.context.messages.at(-1));
    expect(text).toMatchObject({
      type: 'text',
      text: expect.stringContaining('Solar eclipses') as string,
    });
  });
});
