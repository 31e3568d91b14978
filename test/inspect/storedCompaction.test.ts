/**
 * A stored session that compacted, replayed from its log into the inspector's recorder: the
 * replay stands where the session stood — `CallingLlm.CheckingCompaction` while the `preCompact`
 * hook decides, `CallingLlm.Compacting` while the summary is written — and the step that
 * compacted carries the compaction (why, how much it summarised, the summary) for the page to
 * show, since the transcript after it no longer holds what was summarised.
 */
import { describe, expect, it } from 'vitest';
import { type AgentConfig, SUMMARY_HEADING } from '../../src/index.js';
import {
  applyContextPatch,
  inspectStoredSession,
  InspectionRecorder,
  type RecordedStep,
} from '../../src/inspect/index.js';
import { createMemorySessionStore } from '../../src/persistence/memorySessionStore.js';
import { SessionCore } from '../../src/persistence/sessionCore.js';
import { COMPACTING_CONFIG, drive, turnInput } from '../persistence/compactedSessionSuite.js';

const CONFIG: AgentConfig = { ...COMPACTING_CONFIG, hooks: { preCompact: true } };

function contextAfter(recorder: InspectionRecorder, agentId: string) {
  const history = recorder.history(agentId)!;
  return history.steps.reduce(
    (built, step) => applyContextPatch(built, step.patch),
    history.base.context,
  ) as unknown as { messages: Array<{ content: unknown }>; window: { compactions: number } };
}

const emittedOf = (step: RecordedStep) =>
  (step.emitted ?? []) as Array<{ type: string } & Record<string, unknown>>;

describe('a stored session that compacted', () => {
  it('replays through the preCompact hook and the summary, and keeps the compaction on its step', async () => {
    const store = createMemorySessionStore();
    const session = await SessionCore.open(store, 'c', { config: CONFIG });
    let turn = 0;
    let asked = false;
    while (!asked && turn < 40) {
      const driven = await drive(
        session,
        turnInput(turn++),
        (action) => action.type === 'RunPreCompactHook',
      );
      asked = driven.actions.at(-1)?.type === 'RunPreCompactHook';
    }
    expect(asked).toBe(true);
    const before = session.core.context.messages.length;

    const recorder = new InspectionRecorder();
    const view = await inspectStoredSession(recorder, store, 'c', { config: CONFIG });
    const steps = () => recorder.history(view.agentId)?.steps ?? [];
    expect(steps().at(-1)?.value).toEqual({ CallingLlm: 'CheckingCompaction' });

    // The hook lets it through with instructions; the summary comes and the turn goes on.
    await drive(session, { type: 'PreCompactDecision', instructions: 'Keep the notes read.' });
    await view.refresh();
    expect(view.warnings).toEqual([]);
    const values = steps().map((step) => step.value);
    expect(values).toContainEqual({ CallingLlm: 'Compacting' });
    const compacted = steps().find((step) =>
      emittedOf(step).some((action) => action.type === 'Compacted'),
    );
    expect(compacted?.event).toMatchObject({ type: 'LlmCompleted' });
    const action = emittedOf(compacted!).find((item) => item.type === 'Compacted')!;
    // The transcript now: the summary, the messages kept, and the answer to the request.
    const after = session.core.context.messages;
    const kept = after.length - 2;
    expect(action).toEqual({
      type: 'Compacted',
      trigger: 'auto',
      summary: action.summary,
      summarised: before - kept,
      kept,
    });
    expect(action.summary).toMatch(/^Summary of \d+ questions so far\.$/);
    expect(steps().at(-1)?.value).toEqual({ WaitingForUserInput: 'Ready' });
    const context = contextAfter(recorder, view.agentId);
    expect(JSON.stringify(context.messages[0]?.content)).toContain(SUMMARY_HEADING);
    expect(context.window.compactions).toBe(1);
    expect(context.messages).toHaveLength(after.length);
    view.stop();
  });
});
