/**
 * Properties of the two early turn endings (DESIGN section 1, "Turn endings"): `ShutdownRequested`
 * from every reachable state and `Interrupt` from every state a turn runs in, from the waits
 * for the hooks on a turn (`WaitingForUserInput.CheckingPrompt`, where an interrupt withdraws the
 * prompt, and `ProcessingLlmResponse.CheckingStop`, where it ends the turn), and from the states of
 * a compaction, before a request or asked for between turns (where both abandon it and leave the
 * transcript as it was).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findTranscriptViolations, type Message } from '../../../src/index.js';
import { describeStateValue } from '../../../src/machine/index.js';
import {
  actionsOf,
  configArb,
  expectRefused,
  guard,
  lengthArb,
  INTERRUPTING,
  NO_SHUTDOWN,
  NOISY,
  nextEvent,
  PLAUSIBLE,
  requestStarts,
  runScenario,
  type StepRecord,
  TURN_STATES,
  withWaitFor,
} from './scenario.js';

const CHECKING_PROMPT = 'WaitingForUserInput.CheckingPrompt';
const CHECKING_STOP = 'ProcessingLlmResponse.CheckingStop';
const STREAMING = 'CallingLlm.Streaming';
/** The states of a compaction: before a request, and asked for between turns. */
const COMPACTION_PLACES = [
  'CallingLlm.CheckingCompaction',
  'CallingLlm.Compacting',
  'WaitingForUserInput.CheckingCompaction',
  'WaitingForUserInput.Compacting',
];
/** The states a turn runs in, as `placeOf` names them. */
const TURN_PLACES = TURN_STATES.map((state) =>
  state === 'ProcessingLlmResponse' ? CHECKING_STOP : state === 'CallingLlm' ? STREAMING : state,
);

/** Where a step started, nested states named where they matter (waits, and compactions). */
const placeOf = (step: StepRecord): string =>
  step.stateBefore === 'ExecutingTools'
    ? step.stateBefore
    : describeStateValue(step.stateValueBefore);

/** The `Cancel` an early turn ending must send, by the state it leaves. */
function expectCancelFor(step: StepRecord) {
  const { contextBefore: context, actions } = step;
  const place = placeOf(step);
  const cancels = actionsOf(actions, 'Cancel');
  const openIds = context.toolRuns.filter((run) => run.status !== 'done').map((run) => run.call.id);
  const runningIds = context.toolRuns
    .filter((run) => run.status === 'running')
    .map((run) => run.call.id);
  if (place.endsWith('.CheckingCompaction') || place === CHECKING_PROMPT) {
    // The preCompact hook, or the userPromptSubmit hook.
    expect(cancels).toEqual([{ type: 'Cancel', hook: true }]);
    return;
  }
  switch (step.stateBefore) {
    case 'CallingLlm':
      // The request, or the summary call of the compaction before it.
      expect(cancels).toEqual([{ type: 'Cancel', llm: true }]);
      break;
    case 'ExecutingTools': {
      expect(cancels).toHaveLength(1);
      const ids = cancels[0]?.toolCallIds ?? [];
      // Every running call is aborted; nothing outside the open calls is named.
      for (const id of runningIds) expect(ids).toContain(id);
      for (const id of ids) expect(openIds).toContain(id);
      break;
    }
    case 'PostToolsHook':
    case 'ProcessingLlmResponse':
      // The post-tools hook, or the stop hook.
      expect(cancels).toEqual([{ type: 'Cancel', hook: true }]);
      break;
    case 'Error':
      expect(cancels).toEqual([{ type: 'Cancel', retry: true }]);
      break;
    case 'WaitingForUserInput': {
      if (place === 'WaitingForUserInput.Compacting') {
        // The summary call of a compaction asked for between turns.
        expect(cancels).toEqual([{ type: 'Cancel', llm: true }]);
        break;
      }
      // Calls an interrupt was still waiting for are given up on, by name.
      const cancelling = context.toolRuns
        .filter((run) => run.status === 'cancelling')
        .map((run) => run.call.id);
      expect(cancels).toEqual(
        cancelling.length > 0 ? [{ type: 'Cancel', toolCallIds: cancelling }] : [],
      );
      break;
    }
    default:
      expect(cancels).toEqual([]);
  }
}

/** What leaving `state` early appends to the transcript: the partial text or the tool results. */
function expectPartialWorkKept(step: StepRecord, reason: RegExp) {
  const before = step.contextBefore;
  const appended = step.contextAfter.messages.slice(before.messages.length);
  if (placeOf(step) === STREAMING && before.streamingText.length > 0) {
    expect(appended[0]).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: before.streamingText }],
    });
  }
  if (step.stateBefore === 'ExecutingTools') {
    const results: Message | undefined = appended[0];
    expect(results?.role).toBe('user');
    const blocks = Array.isArray(results?.content) ? results.content : [];
    // One result per call, in the order the model asked for them.
    expect(blocks.map((block) => block.type === 'tool_result' && block.tool_use_id)).toEqual(
      before.toolRuns.map((run) => run.call.id),
    );
    before.toolRuns.forEach((run, index) => {
      if (run.status === 'done') return;
      const block = blocks[index];
      // A call that ran keeps its own result: only its postToolUse hook is left undone.
      if (run.status === 'postHook') {
        expect(block).toMatchObject({ type: 'tool_result', tool_use_id: run.call.id });
        expect(Boolean((block as { is_error?: boolean }).is_error)).toBe(
          run.outcome?.status === 'error',
        );
        return;
      }
      expect(block).toMatchObject({ type: 'tool_result', is_error: true });
      expect(String((block as { content?: unknown } | undefined)?.content)).toMatch(reason);
    });
  }
}

describe('AgentCore properties', () => {
  it('shutdown succeeds from every reachable state', () => {
    const shutDownFrom = new Map<string, number>();
    // Where the run stops to shut down: anywhere, or the first time it reaches a given state.
    const stopInArb = fc.oneof(
      {
        weight: 3,
        arbitrary: fc.constantFrom<string | undefined>(
          undefined,
          'WaitingForUserInput',
          CHECKING_PROMPT,
          ...TURN_PLACES,
        ),
      },
      { weight: 1, arbitrary: fc.constantFrom(...COMPACTION_PLACES) },
    );
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, stopInArb, (drawn, g, length, stopIn) => {
        // A run aiming for the wait for a hook has that hook on, and one aiming for a compaction
        // before a request has a window small enough.
        const config = withWaitFor(stopIn, drawn);
        const { probe, events, world, choose } = runScenario(
          // A run aiming for a state may take longer to get there: the post-tools hook, the
          // rarest, needs a mutating call to succeed, which a random run may take a while to draw.
          { g, config, length: stopIn === undefined ? length : 250, profile: NO_SHUTDOWN, stopIn },
          () => undefined,
        );
        const { core } = probe;
        guard(config, events, () => {
          const queued = core.context.queue;
          const planned = { kind: 'valid', event: { type: 'ShutdownRequested' } } as const;
          events.push(planned);
          const step = probe.feed(planned);
          shutDownFrom.set(placeOf(step), (shutDownFrom.get(placeOf(step)) ?? 0) + 1);

          expect(step.diagnostics).toEqual([]);
          expect(core.state).toBe('ShuttingDown');
          expect(core.done).toBe(true);
          const shutdowns = actionsOf(step.actions, 'Shutdown');
          // A prompt the userPromptSubmit hook was checking is discarded input like the rest:
          // it is handed back once, there, and not as dropped.
          expect(shutdowns).toEqual([{ type: 'Shutdown', discardedInput: queued }]);
          expect(actionsOf(step.actions, 'PromptDropped')).toEqual([]);
          expect(step.actions.at(-1)?.type).toBe('Shutdown');
          expectCancelFor(step);
          expectPartialWorkKept(step, /shut down/);
          const place = placeOf(step);
          if (place === CHECKING_PROMPT || place === CHECKING_STOP) {
            // Waiting for a hook, nothing was half done.
            expect(core.context.messages).toEqual(step.contextBefore.messages);
          }
          if (COMPACTION_PLACES.includes(place)) {
            // A compaction under way is abandoned, and said so: the transcript is as it was.
            expect(core.context.messages).toBe(step.contextBefore.messages);
            expect(core.context.window.compacting).toBe(null);
            expect(actionsOf(step.actions, 'Compacted')).toEqual([]);
            expect(actionsOf(step.actions, 'CompactionSkipped')).toHaveLength(1);
          }
          expect(findTranscriptViolations(core.context.messages)).toEqual([]);
          expect(core.context.queue).toEqual([]);

          // ShuttingDown is final: whatever comes next, valid or not, changes nothing.
          for (let index = 0; index < 8; index++) {
            const later = nextEvent(choose, core, world, NOISY);
            events.push(later);
            const ignored = probe.feed(later);
            expectRefused(
              ignored,
              later.kind === 'malformed' ? 'MALFORMED_EVENT' : 'AGENT_STOPPED',
            );
          }
          const again = { kind: 'valid', event: { type: 'ShutdownRequested' } } as const;
          events.push(again);
          expectRefused(probe.feed(again), 'AGENT_STOPPED');
        });
      }),
      // A quarter of the runs aim for a compaction; the rest as many as before it was drawn.
      { numRuns: 300 },
    );
    for (const place of ['WaitingForUserInput.Ready', CHECKING_PROMPT, ...TURN_PLACES]) {
      expect(shutDownFrom.get(place) ?? 0, place).toBeGreaterThan(8);
    }
    for (const place of COMPACTION_PLACES) {
      expect(shutDownFrom.get(place) ?? 0, place).toBeGreaterThan(3);
    }
  });

  it('an interrupt ends the running turn at once, keeps partial work and names what to cancel', () => {
    const interruptedFrom = new Map<string, number>();
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        const promptHook = config.hooks?.userPromptSubmit === true;
        runScenario({ g, config, length, profile: INTERRUPTING }, (step) => {
          if (step.planned.kind !== 'valid' || step.planned.event.type !== 'Interrupt') return;
          const before = step.contextBefore;
          const place = placeOf(step);
          const compacting = COMPACTION_PLACES.includes(place);
          if (!TURN_STATES.includes(step.stateBefore) && place !== CHECKING_PROMPT && !compacting) {
            expect(step.actions).toEqual([]);
            return;
          }
          interruptedFrom.set(place, (interruptedFrom.get(place) ?? 0) + 1);
          expect(step.diagnostics).toEqual([]);
          expectCancelFor(step);
          // A compaction under way is abandoned, done or not; the only one under way after is
          // one the next turn's request needs, started at once.
          const started = requestStarts(step.actions).some(
            (action) => action.type !== 'SendLlmRequest',
          );
          expect(step.contextAfter.window.compacting !== null).toBe(started);
          expect(actionsOf(step.actions, 'Compacted')).toEqual([]);
          expect(actionsOf(step.actions, 'CompactionSkipped')).toEqual(
            compacting
              ? [
                  {
                    type: 'CompactionSkipped',
                    trigger: place.startsWith('CallingLlm') ? 'auto' : 'manual',
                    reason: expect.stringMatching(/interrupted/) as string,
                  },
                ]
              : [],
          );
          if (place === CHECKING_PROMPT) {
            // The prompt the hook was checking is handed back, never sent unchecked; the next
            // queued prompt, if any, is checked in its turn.
            const [held, ...rest] = before.queue;
            expect(actionsOf(step.actions, 'PromptDropped')).toEqual([
              {
                type: 'PromptDropped',
                prompt: held,
                reason: expect.stringMatching(/interrupted/) as string,
              },
            ]);
            expect(step.contextAfter.messages).toEqual(before.messages);
            expect(step.contextAfter.queue).toEqual(rest);
            expect(actionsOf(step.actions, 'SendLlmRequest')).toEqual([]);
            if (rest[0] === undefined) {
              expect(step.stateValueAfter).toEqual({ WaitingForUserInput: 'Ready' });
              expect(step.actions.at(-1)).toEqual({ type: 'WaitForInput' });
            } else {
              expect(step.stateValueAfter).toEqual({ WaitingForUserInput: 'CheckingPrompt' });
              expect(actionsOf(step.actions, 'RunUserPromptSubmitHook')).toEqual([
                { type: 'RunUserPromptSubmitHook', prompt: rest[0] },
              ]);
              expect(actionsOf(step.actions, 'WaitForInput')).toEqual([]);
            }
            return;
          }
          expect(actionsOf(step.actions, 'PromptDropped')).toEqual([]);
          const cancelling = step.contextAfter.toolRuns.filter(
            (run) => run.status === 'cancelling',
          );
          if (cancelling.length > 0) {
            // Running calls were aborted: the turn ends for the user now, and their results go in
            // once they report how they ended (or the grace period ends).
            expect(step.stateValueAfter).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });
            // Input typed meanwhile waits for them; otherwise the user is free to type.
            expect(actionsOf(step.actions, 'WaitForInput')).toHaveLength(
              before.queue.length === 0 ? 1 : 0,
            );
            expect(cancelling.map((run) => run.call.id)).toEqual(
              before.toolRuns.filter((run) => run.status === 'running').map((run) => run.call.id),
            );
            expect(actionsOf(step.actions, 'Cancel')[0]?.graceMs).toBeGreaterThan(0);
            expect(step.contextAfter.messages).toEqual(before.messages);
            expect(step.contextAfter.queue).toEqual(before.queue);
            return;
          }
          expectPartialWorkKept(step, /interrupted/);
          expect(findTranscriptViolations(step.contextAfter.messages)).toEqual([]);
          const [next, ...rest] = before.queue;
          if (step.stateBefore === 'ProcessingLlmResponse' || compacting) {
            // The stop hook was asked about a response already kept, and a compaction changes
            // the transcript only once it is done: nothing more to keep, and nothing is added but
            // the next turn's prompt, when one starts straight away.
            const started = next !== undefined && !promptHook ? [next] : [];
            expect(step.contextAfter.messages).toEqual([...before.messages, ...started]);
          }
          if (next === undefined) {
            expect(step.stateValueAfter).toEqual({ WaitingForUserInput: 'Ready' });
            expect(step.actions.at(-1)).toEqual({ type: 'WaitForInput' });
          } else if (promptHook) {
            // The oldest queued input goes to the userPromptSubmit hook straight away.
            expect(step.stateValueAfter).toEqual({ WaitingForUserInput: 'CheckingPrompt' });
            expect(step.contextAfter.queue).toEqual(before.queue);
            expect(actionsOf(step.actions, 'RunUserPromptSubmitHook')).toEqual([
              { type: 'RunUserPromptSubmitHook', prompt: next },
            ]);
            expect(actionsOf(step.actions, 'SendLlmRequest')).toEqual([]);
            expect(actionsOf(step.actions, 'WaitForInput')).toEqual([]);
          } else {
            // The oldest queued input starts the next turn straight away: its request goes out,
            // or the compaction it needs first starts.
            expect(step.stateAfter).toBe('CallingLlm');
            expect(step.contextAfter.queue).toEqual(rest);
            expect(requestStarts(step.actions)).toHaveLength(1);
            expect(step.contextAfter.messages.at(-1)).toBe(next);
            const [send] = actionsOf(step.actions, 'SendLlmRequest');
            if (send !== undefined) expect(send.request.messages.at(-1)).toBe(next);
            expect(actionsOf(step.actions, 'WaitForInput')).toEqual([]);
          }
          expect(step.contextAfter.streamingText).toBe('');
          expect(step.contextAfter.toolRuns.every((run) => run.status === 'done')).toBe(true);
        });
      }),
      // Enough runs that the rarest place (the stop hook's wait, about one run in fifteen) comes
      // well over its minimum below on any seed.
      { numRuns: 400 },
    );
    // Every state a turn runs in, the wait for the userPromptSubmit hook and the states of a
    // compaction were interrupted often enough for the checks above to mean something.
    for (const place of [CHECKING_PROMPT, ...TURN_PLACES]) {
      expect(interruptedFrom.get(place) ?? 0, place).toBeGreaterThan(5);
    }
    for (const place of COMPACTION_PLACES) {
      expect(interruptedFrom.get(place) ?? 0, place).toBeGreaterThan(3);
    }
  });

  it('the generator reaches every state, nested ones included, so the properties are not vacuous', () => {
    // Every region of ExecutingTools waits, alone and with the others; nothing else is reached.
    const regions = (hooks: string, approvals: string, questions: string, subagents = 'Idle') =>
      `ExecutingTools (Hooks.${hooks}, Approvals.${approvals}, Subagents.${subagents}, Questions.${questions})`;
    const required = [
      'WaitingForUserInput.Ready',
      'WaitingForUserInput.SettlingCancelledCalls',
      CHECKING_PROMPT,
      CHECKING_STOP,
      ...TURN_PLACES.filter((place) => place !== 'ExecutingTools' && place !== CHECKING_STOP),
      ...COMPACTION_PLACES,
      regions('Idle', 'Idle', 'Idle'),
      regions('Idle', 'Waiting', 'Idle'),
      regions('Idle', 'Idle', 'Waiting'),
      regions('Idle', 'Waiting', 'Waiting'),
      regions('Running', 'Idle', 'Idle'),
      regions('Idle', 'Idle', 'Idle', 'Running'),
      'ShuttingDown',
    ];
    const reached = new Set<string>();
    const missing = () => required.filter((state) => !reached.has(state));
    // Both waits at once need a question beside a call that asks, in a config that has both,
    // which a batch of runs may miss: batches go on until every state was reached, up to a
    // bound that missing one would have to beat many times over.
    for (let batch = 0; batch < 8 && missing().length > 0; batch++) {
      fc.assert(
        fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
          runScenario({ g, config, length, profile: PLAUSIBLE }, (step) => {
            reached.add(describeStateValue(step.stateValueAfter));
          });
        }),
        { numRuns: 400 },
      );
    }
    const possible = new Set(required);
    for (const hooks of ['Idle', 'Running']) {
      for (const approvals of ['Idle', 'Waiting']) {
        for (const questions of ['Idle', 'Waiting']) {
          for (const subagents of ['Idle', 'Running']) {
            possible.add(regions(hooks, approvals, questions, subagents));
          }
        }
      }
    }
    expect(missing()).toEqual([]);
    expect([...reached].filter((state) => !possible.has(state))).toEqual([]);
  });
});
