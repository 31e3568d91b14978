/**
 * Tool results the model reads as content blocks, not as text: a tool's `toolContent`, and
 * `read_file` of an image or a PDF, reach the Messages API as image and document blocks inside
 * the `tool_result`, through the real SDK (over the transport the run uses) to the local server,
 * which refuses what the API refuses. Pure mode takes the same outcome as an event.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentCore,
  type AgentDiagnostic,
  type AgentEvent,
  createReadFileTool,
  defineTool,
  type ImageBlock,
  type ToolResultContent,
  toolContent,
} from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { userInput } from '../support/events.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('rich-results-');

/** A 1×1 PNG. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const pngBlock: ImageBlock = {
  type: 'image',
  source: { type: 'base64', media_type: 'image/png', data: PNG.toString('base64') },
};

/** A tool that answers with the blocks it is given. */
function showing(...blocks: ToolResultContent[]) {
  return defineTool({
    name: 'screenshot',
    description: 'Take a screenshot',
    input: z.object({}),
    mutating: false,
    execute: () => toolContent(...blocks),
  });
}

/** The `tool_result` blocks of the request that followed the tool call. */
function toolResultsOf(body: unknown): unknown {
  const messages = (body as { messages: Array<{ content: unknown }> }).messages;
  return messages.at(-1)?.content;
}

describe('rich tool results', () => {
  it('sends the blocks a tool returns to the model as they are, text and image', async () => {
    const agent = await scripted.start(
      [reply([{ type: 'tool_use', name: 'screenshot', input: {} }]), reply('A white dot.')],
      { tools: [showing({ type: 'text', text: 'the page' }, pngBlock)] },
    );
    agent.send('What is on the page?');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const [, second] = scripted.server().requests;
    expect(toolResultsOf(second?.body)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: expect.any(String) as string,
        content: [{ type: 'text', text: 'the page' }, pngBlock],
      },
    ]);
    expect(agent.context.lastError).toBeNull();
    expect(agent.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'A white dot.' }],
    });
  });

  it('read_file shows the model an image and a PDF, known by their bytes, and text as text', async () => {
    const agent = await scripted.start(
      [
        reply([
          { type: 'tool_use', name: 'read_file', input: { path: 'logo.dat' } },
          { type: 'tool_use', name: 'read_file', input: { path: 'spec.pdf' } },
          { type: 'tool_use', name: 'read_file', input: { path: 'notes.txt' } },
        ]),
        reply('Read them.'),
      ],
      { tools: [createReadFileTool()] },
    );
    await writeFile(join(scripted.temp.directory, 'logo.dat'), PNG);
    const pdf = Buffer.from('%PDF-1.4\n%âãÏÓ\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n');
    await writeFile(join(scripted.temp.directory, 'spec.pdf'), pdf);
    await writeFile(join(scripted.temp.directory, 'notes.txt'), 'plain words\n');
    agent.send('Read the three files.');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    const [, second] = scripted.server().requests;
    expect(toolResultsOf(second?.body)).toEqual([
      { type: 'tool_result', tool_use_id: expect.any(String) as string, content: [pngBlock] },
      {
        type: 'tool_result',
        tool_use_id: expect.any(String) as string,
        content: [
          {
            type: 'document',
            source: { type: 'base64', media_type: 'application/pdf', data: pdf.toString('base64') },
          },
        ],
      },
      { type: 'tool_result', tool_use_id: expect.any(String) as string, content: 'plain words\n' },
    ]);
  });

  it('a block the API refuses fails the call as the API would, naming the block', async () => {
    const agent = await scripted.start(
      [reply([{ type: 'tool_use', name: 'screenshot', input: {} }]), reply('never sent')],
      {
        tools: [
          showing({
            type: 'image',
            source: { type: 'base64', media_type: 'image/bmp' as 'image/png', data: 'Qk0=' },
          }),
        ],
      },
    );
    agent.send('What is on the page?');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(agent.context.lastError).toMatchObject({
      kind: 'invalid_request',
      message: expect.stringContaining(
        "messages.2.content.0.content.0.source.media_type: Input should be 'image/jpeg'",
      ) as string,
    });
  });
});

describe('rich tool results in pure mode', () => {
  /** A core waiting on one read-only call `t1`, and the diagnostics it reports. */
  function executing() {
    const diagnostics: AgentDiagnostic[] = [];
    const core = new AgentCore({}, { onDiagnostic: (d) => diagnostics.push(d) });
    core.handleEvent(userInput('Look.'));
    core.handleEvent({
      type: 'LlmCompleted',
      response: {
        message: {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.png' } }],
        },
        stopReason: 'tool_use',
      },
    });
    expect(core.state).toBe('ExecutingTools');
    return { core, diagnostics };
  }

  it('a ToolCompleted with content becomes the tool_result the next request carries', () => {
    const { core } = executing();
    const actions = core.handleEvent({
      type: 'ToolCompleted',
      callId: 't1',
      outcome: { status: 'success', content: [pngBlock] },
    });
    const answer = {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: [pngBlock] }],
    };
    const request = actions.find((action) => action.type === 'SendLlmRequest');
    expect(request?.type === 'SendLlmRequest' && request.request.messages.at(-1)).toEqual(answer);
    expect(core.context.messages.at(-1)).toEqual(answer);
  });

  it('refuses content that is not a list of typed blocks, and nothing changes', () => {
    const { core, diagnostics } = executing();
    const before = core.snapshot();
    const actions = core.handleEvent({
      type: 'ToolCompleted',
      callId: 't1',
      outcome: { status: 'success', content: [{ text: 'no type' }] },
    } as unknown as AgentEvent);
    expect(actions).toEqual([]);
    expect(diagnostics.map((d) => d.message)).toEqual([
      expect.stringContaining('outcome.content must be an array of content blocks'),
    ]);
    expect(core.snapshot()).toEqual(before);
  });
});
