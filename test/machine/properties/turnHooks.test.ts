/**
 * Properties of the caller's hooks on a turn (`AgentConfig.hooks`): the `userPromptSubmit` hook
 * checks every prompt before it starts a turn — a blocked prompt never reaches the model, a note
 * follows the prompt, a hook that failed lets it through — and the `stop` hook is asked exactly
 * when a turn would end, and has a turn go on at most once. Written from the design, with the
 * scenario's own bookkeeping (which turn runs, how many model calls it made), not the chart's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AgentConfig,
  findTranscriptViolations,
  type HookSwitches,
  type Message,
} from '../../../src/index.js';
import { toolCallsOf } from '../../../src/machine/transcript.js';
import {
  actionsOf,
  compactionStage,
  configArb,
  expectOftenEnough,
  isCheckingPrompt,
  isCheckingStop,
  lengthArb,
  NO_SHUTDOWN,
  PLAUSIBLE,
  type Profile,
  requestStarts,
  runScenario,
  type StepRecord,
  textOf,
} from './scenario.js';

/**
 * The scenario's configs, most of them with `hook` on (alone, or with the other hook on a turn),
 * the rest as drawn.
 */
function configWith(hook: keyof HookSwitches): fc.Arbitrary<AgentConfig> {
  return fc
    .tuple(
      configArb,
      fc.constantFrom<HookSwitches | null>(
        null,
        { [hook]: true },
        { [hook]: true },
        { userPromptSubmit: true, stop: true },
      ),
    )
    .map(([config, turnHooks]) =>
      turnHooks === null ? config : { ...config, hooks: { ...config.hooks, ...turnHooks } },
    );
}

/**
 * A caller whose model fails less often, over longer runs: more turns come to an end, and more
 * of those that the stop hook had go on come to an end again.
 */
const ENDING_TURNS: Profile = { ...NO_SHUTDOWN, errors: 4 };
const longerArb = fc.integer({ min: 20, max: 80 });

const isUserInputText = (message: Message) =>
  message.role === 'user' && textOf(message.content).startsWith('user input #');

/** What the user typed: the scenario's inputs are plain strings, notes come after in blocks. */
function inputText(message: Message | undefined): string | undefined {
  if (message === undefined) return undefined;
  if (typeof message.content === 'string') return message.content;
  const [first] = message.content;
  return first?.type === 'text' && 'text' in first ? String(first.text) : undefined;
}

/**
 * The user inputs a step took into the transcript: each starts a turn. Told apart by their text
 * (each input's is its own), since a compaction that ends in the same step may have rewritten the
 * transcript before the input was appended.
 */
function promptsTaken(step: StepRecord): Message[] {
  const had = new Set(step.contextBefore.messages.filter(isUserInputText).map(inputText));
  return step.contextAfter.messages.filter(
    (message) => isUserInputText(message) && !had.has(inputText(message)),
  );
}

/** The errors a step showed that came from a hook. */
const hookErrorsOf = (step: StepRecord) =>
  actionsOf(step.actions, 'DisplayError').filter((shown) => shown.source === 'hook');

/** The event a step fed, when it was valid and taken. */
function takenEvent(step: StepRecord) {
  const { planned } = step;
  return planned.kind === 'valid' && step.diagnostics.length === 0 ? planned.event : null;
}

describe('AgentCore properties: the hooks on a turn', () => {
  it('checks every prompt with the userPromptSubmit hook before its turn: blocked ones never reach the model', () => {
    const seen = { checks: 0, blocked: 0, noted: 0, failed: 0, resumed: 0, queuedBehind: 0 };
    fc.assert(
      fc.property(configWith('userPromptSubmit'), fc.gen(), lengthArb, (config, g, length) => {
        const hookOn = config.hooks?.userPromptSubmit === true;
        const dropped = new Set<string | undefined>();
        runScenario({ g, config, length, profile: PLAUSIBLE }, (step) => {
          const event = takenEvent(step);
          const wasChecking = isCheckingPrompt({ stateValue: step.stateValueBefore });
          const checking = isCheckingPrompt({ stateValue: step.stateValueAfter });
          const asked = actionsOf(step.actions, 'RunUserPromptSubmitHook');
          const drops = actionsOf(step.actions, 'PromptDropped');
          if (!hookOn) {
            expect(checking).toBe(false);
            expect(asked).toEqual([]);
            expect(drops).toEqual([]);
            return;
          }
          // The hook is asked once about each prompt it checks: when the prompt comes to the
          // head of the queue, and again on a Resume.
          const held = step.contextAfter.queue[0];
          const fresh =
            checking &&
            (!wasChecking ||
              event?.type === 'Resume' ||
              inputText(step.contextBefore.queue[0]) !== inputText(held));
          expect(asked).toEqual(fresh ? [{ type: 'RunUserPromptSubmitHook', prompt: held }] : []);
          seen.checks += asked.length;
          if (wasChecking && event?.type === 'Resume') seen.resumed++;
          if (wasChecking && event?.type === 'UserInput') {
            // Input typed meanwhile queues behind the prompt being checked.
            seen.queuedBehind++;
            expect(step.contextAfter.queue).toEqual([...step.contextBefore.queue, event.message]);
          }
          // A prompt enters the transcript only once the hook let it through.
          const taken = promptsTaken(step);
          if (taken.length > 0) {
            expect(wasChecking && event?.type === 'UserPromptSubmitDecision').toBe(true);
          }
          for (const drop of drops) dropped.add(inputText(drop.prompt));
          // A dropped prompt never reaches the model, in this request or any later one.
          for (const { request } of actionsOf(step.actions, 'SendLlmRequest')) {
            for (const message of request.messages) {
              if (isUserInputText(message)) expect(dropped.has(inputText(message))).toBe(false);
            }
          }
          if (!wasChecking || event?.type !== 'UserPromptSubmitDecision') {
            if (event?.type !== 'Interrupt') expect(drops).toEqual([]);
            return;
          }
          const prompt = step.contextBefore.queue[0];
          const rest = step.contextBefore.queue.slice(1);
          const hookErrors = hookErrorsOf(step);
          if (event.decision === 'block' && event.error === undefined) {
            seen.blocked++;
            expect(drops).toEqual([
              {
                type: 'PromptDropped',
                prompt,
                reason: expect.stringContaining(event.reason ?? 'blocked') as string,
              },
            ]);
            expect(step.contextAfter.messages).toEqual(step.contextBefore.messages);
            expect(actionsOf(step.actions, 'SendLlmRequest')).toEqual([]);
            expect(hookErrors).toEqual([]);
            // The next queued prompt, if any, is checked in its turn.
            expect(step.contextAfter.queue).toEqual(rest);
            expect(checking).toBe(rest.length > 0);
            return;
          }
          // Let through (a hook that failed lets it through as it was): the turn starts with it,
          // and with the hook's note after it; its request goes out, or the compaction it needs
          // first starts (and the prompt stays word for word).
          expect(drops).toEqual([]);
          expect(step.stateAfter).toBe('CallingLlm');
          expect(step.contextAfter.queue).toEqual(rest);
          expect(taken).toHaveLength(1);
          expect(requestStarts(step.actions)).toHaveLength(1);
          const [send] = actionsOf(step.actions, 'SendLlmRequest');
          const sent = step.contextAfter.messages.at(-1);
          if (send !== undefined) expect(send.request.messages.at(-1)).toBe(sent);
          expect(sent).toBe(taken[0]);
          if (event.error !== undefined) {
            seen.failed++;
            expect(hookErrors).toEqual([
              {
                type: 'DisplayError',
                message: expect.stringContaining(event.error) as string,
                source: 'hook',
              },
            ]);
            expect(sent).toEqual(prompt);
          } else if (event.context !== undefined) {
            seen.noted++;
            expect(hookErrors).toEqual([]);
            expect(sent).toEqual({
              role: 'user',
              content: [
                { type: 'text', text: prompt?.content },
                { type: 'text', text: `[userPromptSubmit hook] ${event.context}` },
              ],
            });
          } else {
            expect(hookErrors).toEqual([]);
            expect(sent).toEqual(prompt);
          }
          expect(findTranscriptViolations(step.contextAfter.messages)).toEqual([]);
        });
      }),
      // Enough runs that the rarest case counted below (a resume while the hook checks a prompt)
      // clears its minimum by half again on every seed.
      { numRuns: 400 },
    );
    // Every kind of answer, and the waits' other events, came often enough to mean something.
    expectOftenEnough(seen, {
      checks: 300,
      blocked: 50,
      noted: 20,
      failed: 30,
      resumed: 5,
      queuedBehind: 10,
    });
  });

  it('asks the stop hook exactly when a turn would end, and lets it have a turn go on at most once', () => {
    const seen = {
      asked: 0,
      continued: 0,
      ended: 0,
      failed: 0,
      notAskedAgain: 0,
      notAskedAtLimit: 0,
    };
    fc.assert(
      fc.property(configWith('stop'), fc.gen(), longerArb, (config, g, length) => {
        const hookOn = config.hooks?.stop === true;
        const maxTurns = config.maxTurns ?? 100;
        // The scenario's own count of the current turn: its model calls, and whether the hook
        // had it go on.
        let calls = 0;
        let continued = false;
        runScenario({ g, config, length, profile: ENDING_TURNS }, (step) => {
          const event = takenEvent(step);
          const before = step.contextBefore;
          // A compaction's summary call is a model call of the turn (it counts toward maxTurns),
          // but its answer never ends the turn.
          const summary = compactionStage({ stateValue: step.stateValueBefore }) === 'summarising';
          if (summary && event?.type === 'LlmCompleted') calls++;
          const asked = actionsOf(step.actions, 'RunStopHook');
          const checking = isCheckingStop({ stateValue: step.stateValueAfter });
          const wasChecking = isCheckingStop({ stateValue: step.stateValueBefore });
          if (!hookOn) {
            expect(checking).toBe(false);
            expect(asked).toEqual([]);
          } else if (event?.type === 'LlmCompleted' && !summary) {
            calls++;
            const { response } = event;
            const endsTurn =
              toolCallsOf(response.message).length === 0 && response.stopReason !== 'refusal';
            const atLimit = calls >= maxTurns;
            const due = endsTurn && !continued && !atLimit;
            if (endsTurn && continued) seen.notAskedAgain++;
            else if (endsTurn && atLimit) seen.notAskedAtLimit++;
            const last = step.contextAfter.messages.at(-1);
            expect(asked).toEqual(
              due
                ? [{ type: 'RunStopHook', response: last?.role === 'assistant' ? last : null }]
                : [],
            );
            expect(checking).toBe(due);
            if (due) {
              seen.asked++;
              // Nothing else happens while the hook decides: the turn has not ended.
              expect(step.actions.map((action) => action.type)).not.toContain('WaitForInput');
              expect(actionsOf(step.actions, 'SendLlmRequest')).toEqual([]);
            }
          } else if (wasChecking && event?.type === 'Resume') {
            const last = before.messages.at(-1);
            expect(asked).toEqual([
              { type: 'RunStopHook', response: last?.role === 'assistant' ? last : null },
            ]);
          } else {
            expect(asked).toEqual([]);
          }
          if (wasChecking && event?.type === 'StopDecision') {
            const hookErrors = hookErrorsOf(step);
            const sends = actionsOf(step.actions, 'SendLlmRequest');
            if (event.decision === 'continue' && event.error === undefined) {
              // At most once a turn: the hook was not asked again after it had the turn go on.
              expect(continued).toBe(false);
              continued = true;
              seen.continued++;
              expect(step.stateAfter).toBe('CallingLlm');
              expect(hookErrors).toEqual([]);
              // The request goes out, or the compaction it needs first starts.
              expect(requestStarts(step.actions)).toHaveLength(1);
              const messages = step.contextAfter.messages;
              if (sends[0] !== undefined) expect(sends[0].request.messages).toEqual(messages);
              expect(findTranscriptViolations(messages)).toEqual([]);
              // The reason is the model's next instruction, from the user, at the end.
              const last = messages.at(-1);
              expect(last?.role).toBe('user');
              expect(textOf(last?.content ?? '').endsWith(`[stop hook] ${event.reason}`)).toBe(
                true,
              );
              expect(messages.slice(0, before.messages.length - 1)).toEqual(
                before.messages.slice(0, -1),
              );
            } else {
              // The turn ends as it would have; a hook that failed is reported.
              seen[event.error === undefined ? 'ended' : 'failed']++;
              expect(step.contextAfter.messages.slice(0, before.messages.length)).toEqual(
                before.messages,
              );
              expect(hookErrors.map((shown) => shown.message.includes(event.error ?? ''))).toEqual(
                event.error === undefined ? [] : [true],
              );
              expect(step.stateAfter).not.toBe('ProcessingLlmResponse');
              if (before.queue.length === 0) {
                expect(step.stateValueAfter).toEqual({ WaitingForUserInput: 'Ready' });
                expect(step.actions.at(-1)).toEqual({ type: 'WaitForInput' });
              }
            }
          }
          // A new turn starts with its prompt in the transcript: it may be had go on again.
          if (promptsTaken(step).length > 0) {
            calls = 0;
            continued = false;
          }
        });
      }),
      // Enough runs that turns ended at their limit clear their minimum by half again on every seed.
      { numRuns: 250 },
    );
    expectOftenEnough(seen, {
      asked: 100,
      continued: 25,
      ended: 25,
      failed: 15,
      // Turns the hook had go on came to an end again, and turns ended at maxTurns.
      notAskedAgain: 6,
      notAskedAtLimit: 4,
    });
  });
});
