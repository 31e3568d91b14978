/**
 * A stored session whose model asked the user a question: replayed from its log, it stands where
 * the running agent stands — `ExecutingTools` with `Questions.Waiting`, the `ask_user` call
 * awaiting its answer — and, after the answer is stored, goes on as the agent did.
 */
import { describe, expect, it } from 'vitest';
import {
  applyContextPatch,
  inspectStoredSession,
  InspectionRecorder,
} from '../../src/inspect/index.js';
import { reply } from '../../src/testing/index.js';
import { useScriptedAgents } from '../agent/scriptedAgents.js';

const agents = useScriptedAgents('stored-question-');

const QUESTIONS = [
  {
    header: 'Database',
    question: 'Which database should the service use?',
    options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }],
  },
];

interface Replayed {
  value: unknown;
  toolRuns: Array<{ status: string; call: { id: string; name: string } }>;
  messages: Array<{ role: string; content: unknown }>;
}

/** Where the replay stands after its last step: the value, and the context the steps built. */
function replayed(recorder: InspectionRecorder, agentId: string): Replayed {
  const history = recorder.history(agentId)!;
  const context = history.steps.reduce(
    (built, step) => applyContextPatch(built, step.patch),
    history.base.context,
  );
  return { value: history.steps.at(-1)?.value, ...(context as unknown as Omit<Replayed, 'value'>) };
}

describe('a stored session with a question open', () => {
  it('replays to the open question, and on to the answer once it is stored', async () => {
    const agent = await agents.start(
      [
        reply([{ type: 'tool_use', name: 'ask_user', input: { questions: QUESTIONS } }]),
        reply('SQLite it is.'),
      ],
      { store: agents.temp.store, sessionId: 'planning', askUser: true },
    );
    const asked = new Promise<string>((resolve) =>
      agent.on('question', ({ callId }) => resolve(callId)),
    );
    agent.send('Plan the service');
    const callId = await asked;

    const recorder = new InspectionRecorder();
    const view = await inspectStoredSession(recorder, agents.temp.store, 'planning', {
      config: { askUser: true },
    });
    expect(view.warnings).toEqual([]);
    const open = replayed(recorder, view.agentId);
    expect(open.value).toEqual({
      ExecutingTools: { Hooks: 'Idle', Approvals: 'Idle', Subagents: 'Idle', Questions: 'Waiting' },
    });
    expect(open.toolRuns).toMatchObject([
      { call: { id: callId, name: 'ask_user' }, status: 'awaitingAnswer' },
    ]);

    agent.answer(callId, ['SQLite']);
    await agent.waitUntilIdle({ timeoutMs: 5_000 });
    await view.refresh();
    const answered = replayed(recorder, view.agentId);
    expect(answered.value).toEqual({ WaitingForUserInput: 'Ready' });
    // The answers, under their questions, are the call's result the model read.
    expect(JSON.stringify(answered.messages[2])).toContain(
      '[Database] Which database should the service use?\\n→ SQLite',
    );
    expect(answered.messages.at(-1)).toMatchObject({ role: 'assistant' });
    view.stop();
  });
});
