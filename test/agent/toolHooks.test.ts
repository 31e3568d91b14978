/**
 * The caller's tool hooks in actor mode, through the real SDK against the local Messages API
 * server: what `preToolUse` and `postToolUse` answer reaches the tool and the model; hooks that
 * throw, hang or answer nonsense fail closed before a call and open after one; a restarted session
 * asks a hook again only about calls it had not decided.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AgentNotifications,
  AgentStatechartError,
  createAgent,
  defineTool,
  findTranscriptViolations,
  type AgentHooks,
} from '../../src/index.js';
import { reply, type ScriptedTurn } from '../../src/testing/index.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('tool-hooks-');

/** A tool that remembers every word it was run with. */
function recordingTool() {
  const words: string[] = [];
  const tool = defineTool({
    name: 'look_up',
    description: 'Look a word up',
    input: z.object({ word: z.string() }),
    mutating: false,
    execute: ({ word }) => {
      words.push(word);
      return `${word}: a word`;
    },
  });
  return { tool, words };
}

const looksUp = (word: string, id = 'toolu_1'): ScriptedTurn =>
  reply([{ type: 'tool_use', id, name: 'look_up', input: { word } }]);

/** The tool results the model read in the second request. */
function resultsRead(): unknown {
  return scripted.server().requests[1]?.body.messages.at(-1)?.content;
}

async function turn(hooks: AgentHooks, options: Parameters<typeof scripted.start>[1] = {}) {
  const { tool, words } = recordingTool();
  const agent = await scripted.start([looksUp('cat'), reply('Done.')], {
    tools: [tool],
    hooks,
    ...options,
  });
  const errors: AgentNotifications['error'][] = [];
  agent.on('error', (error) => errors.push(error));
  agent.send('look up cat');
  await agent.waitUntilIdle({ timeoutMs: 30_000 });
  expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
  return { agent, words, errors };
}

describe('tool hooks in createAgent', () => {
  it('lets preToolUse deny a call with a reason the model reads; the tool never runs', async () => {
    const { words } = await turn({
      preToolUse: ({ call }) => ({ decision: 'deny', reason: `no ${call.name} today` }),
    });
    expect(words).toEqual([]);
    expect(resultsRead()).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: 'permission denied by the preToolUse hook: no look_up today',
        is_error: true,
      },
    ]);
  });

  it('runs the call with the input preToolUse gives, and the model reads both hooks’ notes', async () => {
    const seen: unknown[] = [];
    const { words } = await turn({
      preToolUse: () => ({ input: { word: 'dog' }, context: 'cats are off topic' }),
      postToolUse: ({ call, outcome }) => {
        seen.push({ input: call.input, outcome });
        return { context: 'checked' };
      },
    });
    expect(words).toEqual(['dog']);
    expect(seen).toEqual([
      { input: { word: 'dog' }, outcome: { status: 'success', output: 'dog: a word' } },
    ]);
    expect(resultsRead()).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content:
          'dog: a word\n\nA preToolUse hook changed this call\'s input before it ran; it ran with {"word":"dog"}.\n[preToolUse hook] cats are off topic\n[postToolUse hook] checked',
      },
    ]);
  });

  it('fails closed when preToolUse throws: the call is denied and the user is told', async () => {
    const { words, errors } = await turn({
      preToolUse: () => {
        throw new Error('policy service down');
      },
    });
    expect(words).toEqual([]);
    expect(errors).toEqual([
      {
        message: 'the preToolUse hook failed on look_up: policy service down',
        source: 'hook',
      },
    ]);
    expect(JSON.stringify(resultsRead())).toContain(
      'permission denied: the preToolUse hook failed, so the call did not run',
    );
  });

  it('fails closed when preToolUse hangs past hookTimeoutMs, and aborts its signal', async () => {
    let aborted = false;
    const { words, errors } = await turn(
      {
        preToolUse: (_input, { signal }) =>
          new Promise(() => {
            signal.addEventListener('abort', () => (aborted = true));
          }),
      },
      { hookTimeoutMs: 100 },
    );
    expect(words).toEqual([]);
    expect(aborted).toBe(true);
    expect(errors[0]?.message).toMatch(/preToolUse hook failed on look_up: .*took over 100 ms/);
  });

  it('fails closed on an answer that is not one: a decision it does not know', async () => {
    const { words, errors } = await turn({
      preToolUse: () => ({ decision: 'maybe' }) as never,
    });
    expect(words).toEqual([]);
    expect(errors[0]?.message).toMatch(/decision must be 'allow', 'deny' or 'ask'/);
  });

  it('fails open when postToolUse throws: the result stands and the user is told', async () => {
    const { words, errors } = await turn({
      postToolUse: () => Promise.reject(new Error('linter crashed')),
    });
    expect(words).toEqual(['cat']);
    expect(errors).toEqual([
      { message: 'the postToolUse hook failed on look_up: linter crashed', source: 'hook' },
    ]);
    expect(resultsRead()).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: 'cat: a word' },
    ]);
  });

  it('refuses hooks that are not functions, and a timeout that is not a positive number', () => {
    expect(() => createAgent({ hooks: { preToolUse: 'deny' as never } })).toThrow(
      AgentStatechartError,
    );
    expect(() => createAgent({ hooks: { onStop: () => undefined } as never })).toThrow(
      /hooks.onStop is not a hook/,
    );
    expect(() => createAgent({ hookTimeoutMs: 0 })).toThrow(/hookTimeoutMs/);
  });

  it('after a restart, asks the hook again about an undecided call, never about a decided one', async () => {
    const options = { store: scripted.temp.store, sessionId: 'hooks-1' } as const;
    const { tool, words } = recordingTool();
    let firstAsked = 0;
    const first = await scripted.start(
      [
        reply([
          { type: 'tool_use', id: 'toolu_1', name: 'look_up', input: { word: 'cat' } },
          { type: 'tool_use', id: 'toolu_2', name: 'look_up', input: { word: 'dog' } },
        ]),
        reply('Both done.'),
      ],
      {
        ...options,
        tools: [tool],
        hooks: {
          // The first call is decided (the hook asks a person); the second never is.
          preToolUse: ({ call }) => {
            firstAsked++;
            return call.id === 'toolu_1' ? { decision: 'ask' } : new Promise(() => undefined);
          },
        },
      },
    );
    const approval = new Promise((resolve) => first.on('approvalRequest', resolve));
    first.send('look up both');
    await approval;
    expect(firstAsked).toBe(2);
    await first.shutdown();

    const asked: string[] = [];
    const second = scripted.open({
      tools: [tool],
      ...options,
      hooks: {
        preToolUse: ({ call }) => {
          asked.push(call.id);
          return undefined;
        },
      },
    });
    const approvals: string[] = [];
    second.on('approvalRequest', ({ call }) => approvals.push(call.id));
    try {
      await second.ready;
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(asked).toEqual(['toolu_2']);
      expect(approvals).toEqual(['toolu_1']);
      second.approve('toolu_1');
      await second.waitUntilIdle({ timeoutMs: 30_000 });
      expect(words.sort()).toEqual(['cat', 'dog']);
      expect(findTranscriptViolations(second.context.messages)).toEqual([]);
    } finally {
      await second.shutdown();
    }
  });
});
