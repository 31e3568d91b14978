/**
 * The caller's hooks on a turn in actor mode, through the real SDK against the local Messages
 * API server: `userPromptSubmit` blocks a prompt (the model never sees it) or adds a note the
 * model reads; `stop` has a turn go on once; both fail open; a session closed while a hook
 * decides asks it again when reopened.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentHooks,
  type AgentNotifications,
  type AgentStateValue,
  AgentStatechartError,
  createAgent,
  findTranscriptViolations,
  type Message,
} from '../../src/index.js';
import { reply, type ScriptedTurn } from '../../src/testing/index.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('turn-hooks-');

function messageText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** The text of every user message the model was sent in request `index`. */
function userTextsOf(index: number): string[] {
  const messages = scripted.server().requests[index]?.body.messages ?? [];
  return messages.filter((m) => m.role === 'user').map((m) => messageText(m));
}

/**
 * A session whose hook never answers, closed while it waits in `waiting` after `prompt`, then
 * reopened with `hooks` and run until idle: the reopened agent (shut down by the caller).
 */
async function reopenedWhileDeciding(
  sessionId: string,
  script: ScriptedTurn[],
  waiting: AgentStateValue,
  hooks: AgentHooks,
) {
  const options = { store: scripted.temp.store, sessionId } as const;
  const never = () => new Promise<undefined>(() => undefined);
  const first = await scripted.start(script, {
    ...options,
    hooks: Object.fromEntries(Object.keys(hooks).map((name) => [name, never])),
  });
  first.send(PROMPT);
  await expect.poll(() => first.stateValue).toEqual(waiting);
  await first.recorded();
  await first.shutdown();
  const second = createAgent({
    workspace: scripted.temp.directory,
    autoCommit: false,
    anthropic: { baseURL: scripted.server().baseURL, apiKey: 'test-key' },
    ...options,
    hooks,
  });
  await second.ready;
  await second.waitUntilIdle({ timeoutMs: 30_000 });
  return second;
}

const PROMPT = 'finish it';

describe('the userPromptSubmit hook in createAgent', () => {
  it('blocks a prompt: the model never sees it, run rejects, promptDropped hands it back', async () => {
    const agent = await scripted.start([reply('Answered the second.')], {
      hooks: {
        userPromptSubmit: ({ text }) =>
          text.includes('sk-ant-')
            ? { decision: 'block', reason: 'it holds an API key' }
            : undefined,
      },
    });
    const dropped: AgentNotifications['promptDropped'][] = [];
    agent.on('promptDropped', (note) => dropped.push(note));
    const blocked = agent.run('my key is sk-ant-123, deploy');
    await expect(blocked).rejects.toMatchObject({
      code: 'PROMPT_DROPPED',
      message: expect.stringContaining('it holds an API key') as string,
    });
    await expect(blocked).rejects.toBeInstanceOf(AgentStatechartError);
    expect(dropped).toEqual([
      {
        prompt: { role: 'user', content: 'my key is sk-ant-123, deploy' },
        reason: 'the userPromptSubmit hook blocked it: it holds an API key',
      },
    ]);
    expect(agent.context.messages).toEqual([]);

    await expect(agent.run('deploy, please')).resolves.toBe('Answered the second.');
    expect(scripted.server().requests).toHaveLength(1);
    expect(userTextsOf(0)).toEqual(['deploy, please']);
  });

  it('adds the note the hook gives after the prompt, and checks queued prompts in order', async () => {
    const checked: string[] = [];
    const agent = await scripted.start([reply('One.'), reply('Two.')], {
      hooks: {
        userPromptSubmit: async ({ text }) => {
          checked.push(text);
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { context: `branch main, checked "${text}"` };
        },
      },
    });
    agent.send('first');
    agent.send('second');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(checked).toEqual(['first', 'second']);
    expect(userTextsOf(1)).toEqual([
      'first[userPromptSubmit hook] branch main, checked "first"',
      'second[userPromptSubmit hook] branch main, checked "second"',
    ]);
    expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
  });

  it('fails open when the hook throws: the prompt goes on and the user is told', async () => {
    const agent = await scripted.start([reply('Fine.')], {
      hooks: {
        userPromptSubmit: () => {
          throw new Error('policy service down');
        },
      },
    });
    const errors: AgentNotifications['error'][] = [];
    agent.on('error', (error) => errors.push(error));
    await expect(agent.run('hello')).resolves.toBe('Fine.');
    expect(errors).toEqual([
      {
        message:
          'the userPromptSubmit hook failed: policy service down; the prompt went on unchecked',
        source: 'hook',
      },
    ]);
  });

  it('an interrupt while the hook decides hands the prompt back, and aborts the hook', async () => {
    let aborted = false;
    const agent = await scripted.start([reply('unused')], {
      hooks: {
        userPromptSubmit: (_input, { signal }) =>
          new Promise(() => signal.addEventListener('abort', () => (aborted = true))),
      },
    });
    const dropped = new Promise<AgentNotifications['promptDropped']>((resolve) =>
      agent.on('promptDropped', resolve),
    );
    agent.send('wait for it');
    await expect.poll(() => agent.stateValue).toEqual({ WaitingForUserInput: 'CheckingPrompt' });
    agent.interrupt();
    expect((await dropped).reason).toBe(
      'the turn was interrupted before the userPromptSubmit hook decided',
    );
    await agent.waitUntilIdle({ timeoutMs: 5_000 });
    expect(aborted).toBe(true);
    expect(agent.context.messages).toEqual([]);
    expect(scripted.server().requests).toHaveLength(0);
  });

  it('a session closed while the hook decides asks it again when reopened', async () => {
    const asked: string[] = [];
    const second = await reopenedWhileDeciding(
      'prompt-hook-1',
      [reply('Checked and answered.')],
      { WaitingForUserInput: 'CheckingPrompt' },
      {
        userPromptSubmit: ({ text }) => {
          asked.push(text);
          return undefined;
        },
      },
    );
    try {
      expect(asked).toEqual([PROMPT]);
      expect(userTextsOf(0)).toEqual([PROMPT]);
      expect(messageText(second.context.messages.at(-1)!)).toBe('Checked and answered.');
    } finally {
      await second.shutdown();
    }
  });
});

describe('the stop hook in createAgent', () => {
  it('has the turn go on once with its reason, then lets it end; the next turn asks again', async () => {
    const asked: string[] = [];
    const agent = await scripted.start(
      [reply('I am done.'), reply('Tests pass now.'), reply('Second turn.'), reply('Still.')],
      {
        hooks: {
          stop: ({ text }) => {
            asked.push(text);
            return { decision: 'continue', reason: 'run the tests first' };
          },
        },
      },
    );
    await expect(agent.run('fix it')).resolves.toBe('Tests pass now.');
    expect(asked).toEqual(['I am done.']);
    expect(userTextsOf(1)).toEqual(['fix it', '[stop hook] run the tests first']);
    expect(agent.usage.turn.calls).toBe(2);

    await expect(agent.run('again')).resolves.toBe('Still.');
    expect(asked).toEqual(['I am done.', 'Second turn.']);
    expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
  });

  it('a session closed while the stop hook decides asks it again when reopened, and goes on', async () => {
    const asked: string[] = [];
    const second = await reopenedWhileDeciding(
      'stop-hook-1',
      [reply('Done?'), reply('Done, checked.')],
      { ProcessingLlmResponse: 'CheckingStop' },
      {
        stop: ({ text }, { sessionId }) => {
          asked.push(`${sessionId}: ${text}`);
          return { decision: 'continue', reason: 'check it' };
        },
      },
    );
    try {
      expect(asked).toEqual(['stop-hook-1: Done?']);
      expect(scripted.server().requests).toHaveLength(2);
      expect(userTextsOf(1)).toEqual([PROMPT, '[stop hook] check it']);
      expect(messageText(second.context.messages.at(-1)!)).toBe('Done, checked.');
      expect(findTranscriptViolations(second.context.messages)).toEqual([]);
    } finally {
      await second.shutdown();
    }
  });

  it('fails open when the hook hangs past hookTimeoutMs: the turn ends and the user is told', async () => {
    const agent = await scripted.start([reply('Done.')], {
      hookTimeoutMs: 50,
      hooks: { stop: () => new Promise(() => undefined) },
    });
    const errors: AgentNotifications['error'][] = [];
    agent.on('error', (error) => errors.push(error));
    await expect(agent.run('go')).resolves.toBe('Done.');
    expect(errors).toEqual([
      {
        message:
          'the stop hook failed: the stop hook took over 50 ms; the turn ended as it would have',
        source: 'hook',
      },
    ]);
    expect(scripted.server().requests).toHaveLength(1);
  });

  it('refuses a continue without a reason as a failure of the hook', async () => {
    const agent = await scripted.start([reply('Done.')], {
      hooks: { stop: () => ({ decision: 'continue' }) },
    });
    const errors: string[] = [];
    agent.on('error', ({ message }) => errors.push(message));
    await expect(agent.run('go')).resolves.toBe('Done.');
    expect(errors).toEqual([
      "the stop hook failed: a 'continue' decision needs a reason: the model's next instruction; the turn ended as it would have",
    ]);
  });
});
