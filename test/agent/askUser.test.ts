/**
 * The model's questions to the user (`askUser: true`), in actor mode through the real SDK against
 * the local Messages API server: the `question` notification, `agent.answer` and what the model
 * reads next; parallel questions; an interrupt, a shutdown and a restart while a question waits;
 * answers the agent cannot take; and the tool left out when `askUser` is off.
 */
import { describe, expect, it } from 'vitest';
import {
  type Agent,
  type AgentAction,
  type AgentDiagnostic,
  type AgentNotifications,
  findTranscriptViolations,
  type UserQuestion,
} from '../../src/index.js';
import { reply, type ScriptedTurn } from '../../src/testing/index.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('ask-user-');

const database: UserQuestion = {
  header: 'Database',
  question: 'Which database should the service use?',
  options: [
    { label: 'PostgreSQL', description: 'shared, managed' },
    { label: 'SQLite', description: 'one file' },
  ],
};
const features: UserQuestion = {
  header: 'Features',
  question: 'Which features come first?',
  options: [{ label: 'Search' }, { label: 'Export' }, { label: 'Sharing' }],
  multiSelect: true,
};

/** A response that asks `questions` in one `ask_user` call with the id `id`. */
function asks(id: string, ...questions: UserQuestion[]): ScriptedTurn {
  return reply([{ type: 'tool_use', id, name: 'ask_user', input: { questions } }]);
}

/** The next `question` notification of `agent`. */
function nextQuestion(agent: Agent): Promise<AgentNotifications['question']> {
  return new Promise((resolve) => {
    const stop = agent.on('question', (asked) => {
      stop();
      resolve(asked);
    });
  });
}

/** The last message of the `index`th request the model server received. */
function lastMessageOf(index: number): unknown {
  return scripted.server().requests[index]?.body.messages.at(-1)?.content;
}

describe('asking the user', () => {
  it('says what the model asks, takes the answers and gives them to the model', async () => {
    const agent = await scripted.start(
      [asks('toolu_plan', database, features), reply('Noted: SQLite, search and export.')],
      { askUser: true },
    );
    const asked = nextQuestion(agent);
    agent.send('Plan the service');
    expect(await asked).toEqual({ callId: 'toolu_plan', questions: [database, features] });
    expect(agent.questions()).toEqual([{ callId: 'toolu_plan', questions: [database, features] }]);
    expect(agent.stateValue).toEqual({
      ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Waiting' },
    });
    // The tool is offered with the others; the call runs no tool actor.
    const offered = scripted.server().requests[0]?.body.tools?.map((tool) => tool.name);
    expect(offered).toEqual(['look_up', 'ask_user']);

    agent.answer('toolu_plan', ['SQLite', ['Search', 'Export']]);
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(agent.questions()).toEqual([]);
    expect(lastMessageOf(1)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_plan',
        content:
          'The user answered:\n[Database] Which database should the service use?\n→ SQLite\n' +
          '[Features] Which features come first?\n→ Search, Export',
      },
    ]);
  });

  it('waits for every question of the response together, answered in any order', async () => {
    const name: UserQuestion = { header: 'Name', question: 'What is the service called?' };
    const agent = await scripted.start(
      [
        reply([
          { type: 'tool_use', id: 'toolu_a', name: 'ask_user', input: { questions: [database] } },
          { type: 'tool_use', id: 'toolu_b', name: 'ask_user', input: { questions: [name] } },
          { type: 'tool_use', id: 'toolu_c', name: 'look_up', input: { word: 'queue' } },
        ]),
        reply('Thanks.'),
      ],
      { askUser: true },
    );
    const questions: string[] = [];
    agent.on('question', ({ callId }) => questions.push(callId));
    agent.send('Plan the service');
    await until(() => questions.length === 2);
    expect(questions).toEqual(['toolu_a', 'toolu_b']);

    agent.answer('toolu_b', ['orders']);
    await until(() =>
      agent.context.toolRuns.every((run) => run.call.id === 'toolu_a' || run.status === 'done'),
    );
    // One question is still open: the turn waits, and the model is not called.
    expect(agent.questions().map((open) => open.callId)).toEqual(['toolu_a']);
    expect(agent.state).toBe('ExecutingTools');
    expect(scripted.server().requests).toHaveLength(1);

    agent.answer('toolu_a', ['PostgreSQL']);
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    // The results go back in the order the model made the calls.
    expect(lastMessageOf(1)).toEqual([
      expect.objectContaining({
        tool_use_id: 'toolu_a',
        content: expect.stringContaining('→ PostgreSQL') as string,
      }),
      expect.objectContaining({
        tool_use_id: 'toolu_b',
        content: expect.stringContaining('→ orders') as string,
      }),
      expect.objectContaining({ tool_use_id: 'toolu_c', content: 'queue: a word' }),
    ]);
  });

  it('answers an open question as interrupted on an interrupt, and withdraws it', async () => {
    const agent = await scripted.start([asks('toolu_plan', database), reply('Fine.')], {
      askUser: true,
    });
    const actions: AgentAction[] = [];
    agent.on('action', (action) => actions.push(action));
    const asked = nextQuestion(agent);
    agent.send('Plan the service');
    await asked;
    agent.interrupt();
    await agent.waitUntilIdle({ timeoutMs: 30_000 });

    expect(actions).toContainEqual(
      expect.objectContaining({ type: 'Cancel', toolCallIds: ['toolu_plan'] }),
    );
    expect(agent.context.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_plan',
          is_error: true,
          content: 'interrupted: the user interrupted the turn without answering these questions',
        },
      ],
    });
    expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
    expect(agent.questions()).toEqual([]);

    // An answer that comes too late changes nothing, and says why.
    const diagnostics = diagnosticsOf(agent);
    agent.answer('toolu_plan', ['SQLite']);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'EVENT_NOT_ACCEPTED',
        message:
          "UserAnswer ignored: tool call 'toolu_plan' is not waiting for answers (it has its result already: answered, interrupted or cancelled); nothing changed",
      }),
    ]);
    // The next turn starts from a valid transcript.
    agent.send('Go on');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(scripted.server().requests).toHaveLength(2);
  });

  it('answers an open question as cancelled on shutdown, so the stored transcript stays valid', async () => {
    const agent = await scripted.start([asks('toolu_plan', database)], { askUser: true });
    const actions: AgentAction[] = [];
    agent.on('action', (action) => actions.push(action));
    const asked = nextQuestion(agent);
    agent.send('Plan the service');
    await asked;
    await agent.shutdown();

    expect(actions).toContainEqual(
      expect.objectContaining({ type: 'Cancel', toolCallIds: ['toolu_plan'] }),
    );
    const messages = agent.snapshot().context.messages;
    expect(messages.at(-1)).toMatchObject({
      role: 'user',
      content: [
        {
          tool_use_id: 'toolu_plan',
          is_error: true,
          content: 'cancelled: the agent shut down before the user answered these questions',
        },
      ],
    });
    expect(findTranscriptViolations(messages)).toEqual([]);
  });

  it('asks again after a restart: an agent opened on the stored session says the question again, and its answer finishes the turn', async () => {
    const options = {
      askUser: true,
      store: scripted.temp.store,
      sessionId: 'plan-1',
    } as const;
    const first = await scripted.start(
      [asks('toolu_plan', database), reply('SQLite it is.')],
      options,
    );
    const asked = nextQuestion(first);
    first.send('Plan the service');
    await asked;
    // The process goes away; the session stays open in the store, its question unanswered.
    await first.shutdown();

    // Listening before the session opens: the resume says the question again.
    const second = scripted.open(options);
    const questions: AgentNotifications['question'][] = [];
    second.on('question', (asked) => questions.push(asked));
    try {
      await second.ready;
      expect(questions).toEqual([{ callId: 'toolu_plan', questions: [database] }]);
      second.answer('toolu_plan', ['SQLite']);
      await second.waitUntilIdle({ timeoutMs: 30_000 });
      expect(second.context.messages.at(-1)).toEqual({
        role: 'assistant',
        content: [{ type: 'text', text: 'SQLite it is.' }],
      });
      expect(lastMessageOf(1)).toEqual([
        expect.objectContaining({ content: expect.stringContaining('→ SQLite') as string }),
      ]);
      expect(findTranscriptViolations(second.context.messages)).toEqual([]);
      expect(questions).toHaveLength(1);
    } finally {
      await second.shutdown();
    }
  });
  it('refuses answers it cannot take with a diagnostic that says why, and keeps the question open', async () => {
    const agent = await scripted.start([asks('toolu_plan', database), reply('Done.')], {
      askUser: true,
    });
    const asked = nextQuestion(agent);
    agent.send('Plan the service');
    await asked;
    const diagnostics = diagnosticsOf(agent);

    agent.answer('toolu_plan', [42] as never);
    agent.answer(7 as never, ['SQLite']);
    agent.answer('toolu_nope', ['SQLite']);
    agent.answer('toolu_plan', ['SQLite', 'PostgreSQL']);
    agent.answer('toolu_plan', [['SQLite', 'PostgreSQL']]);
    agent.answer('toolu_plan', []);
    expect(diagnostics.map(({ code, message }) => ({ code, message }))).toEqual([
      {
        code: 'MALFORMED_EVENT',
        message:
          'UserAnswer: answers must be an array with one answer per question: a string, or an array of strings',
      },
      {
        code: 'MALFORMED_EVENT',
        message: expect.stringMatching(/^UserAnswer: callId must be a string/) as string,
      },
      {
        code: 'EVENT_NOT_ACCEPTED',
        message:
          "UserAnswer ignored: tool call 'toolu_nope' is not waiting for answers (no call of the current response has that id); nothing changed",
      },
      {
        code: 'EVENT_NOT_ACCEPTED',
        message:
          "UserAnswer ignored: 2 answers for 1 question (tool call 'toolu_plan' asks 1 question: answer each, in order, '' for none); nothing changed",
      },
      {
        code: 'EVENT_NOT_ACCEPTED',
        message:
          "UserAnswer ignored: answers[0] picks several choices, but question 1 takes one (tool call 'toolu_plan' asks 1 question: answer each, in order, '' for none); nothing changed",
      },
      {
        code: 'EVENT_NOT_ACCEPTED',
        message:
          "UserAnswer ignored: 0 answers for 1 question (tool call 'toolu_plan' asks 1 question: answer each, in order, '' for none); nothing changed",
      },
    ]);
    expect(agent.questions()).toHaveLength(1);
    expect(scripted.server().requests).toHaveLength(1);

    // A question left without an answer is answered as such.
    agent.answer('toolu_plan', ['']);
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(lastMessageOf(1)).toEqual([
      expect.objectContaining({
        content:
          'The user answered:\n[Database] Which database should the service use?\n→ (no answer)',
      }),
    ]);
  });

  it('offers no ask_user tool when askUser is off (the default)', async () => {
    const agent = await scripted.start([reply('Hello.')]);
    const diagnostics = diagnosticsOf(agent);
    agent.send('Hi');
    await agent.waitUntilIdle({ timeoutMs: 30_000 });
    expect(scripted.server().requests[0]?.body.tools?.map((tool) => tool.name)).toEqual([
      'look_up',
    ]);
    agent.answer('toolu_plan', ['SQLite']);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        code: 'EVENT_NOT_ACCEPTED',
        message: expect.stringContaining(
          "tool call 'toolu_plan' is not waiting for answers",
        ) as string,
      }),
    ]);
  });
});

/** The `diagnostic` notifications of `agent` from now on. */
function diagnosticsOf(agent: Agent): AgentDiagnostic[] {
  const seen: AgentDiagnostic[] = [];
  agent.on('diagnostic', (diagnostic) => {
    // Only refusals of events: the agent's notices about how it runs come at start.
    if (diagnostic.event !== undefined) seen.push(diagnostic as AgentDiagnostic);
  });
  return seen;
}

/** Resolves once `condition` holds (checked every few milliseconds, for at most 10 s). */
async function until(condition: () => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition never held');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
