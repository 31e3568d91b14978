/**
 * Approvals answered with more than yes or no, in actor mode through the real SDK: a refusal's
 * reason and an edited input reach the model in the next request, and the call runs with the
 * input the person gave.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWriteFileTool } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('approval-answers-');

function lastToolResult(index: number): unknown {
  const body = scripted.server().requests[index]?.body;
  return body?.messages.at(-1)?.content;
}

describe('answering an approval request', () => {
  it('runs the call with an edited input, and tells the model', async () => {
    const agent = await scripted.start(
      [
        reply([{ type: 'tool_use', name: 'write_file', input: { path: 'a.txt', content: 'hi' } }]),
        reply('Written.'),
      ],
      {
        tools: [createWriteFileTool()],
        permissions: { mode: 'default' },
      },
    );
    agent.on('approvalRequest', ({ call }) =>
      agent.approve(call.id, { input: { path: 'b.txt', content: 'hello' } }),
    );
    agent.send('Write a file');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(await readFile(join(scripted.temp.directory, 'b.txt'), 'utf8')).toBe('hello');
    await expect(readFile(join(scripted.temp.directory, 'a.txt'))).rejects.toThrow();
    expect(lastToolResult(1)).toEqual([
      expect.objectContaining({
        type: 'tool_result',
        content: expect.stringMatching(
          /^The user edited this call's input before it ran; it ran with \{"path":"b\.txt","content":"hello"\}\.\n\n/,
        ) as string,
      }),
    ]);
  });

  it('refuses with a reason the model reads', async () => {
    const agent = await scripted.start(
      [
        reply([{ type: 'tool_use', name: 'write_file', input: { path: 'a.txt', content: 'hi' } }]),
        reply('Understood.'),
      ],
      {
        tools: [createWriteFileTool()],
        permissions: { mode: 'default' },
      },
    );
    agent.on('approvalRequest', ({ call }) =>
      agent.deny(call.id, { reason: 'put it in notes/ instead' }),
    );
    agent.send('Write a file');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(lastToolResult(1)).toEqual([
      expect.objectContaining({
        is_error: true,
        content:
          'permission denied: the user refused this write_file call: put it in notes/ instead',
      }),
    ]);
  });
});
