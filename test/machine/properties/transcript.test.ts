/**
 * Properties of the transcript (DESIGN section 4): every request the chart sends is one the
 * Messages API accepts, a compaction replaces the older part with its summary and keeps the rest,
 * user input is never lost (a compaction summarises it; it does not lose it), and a streaming
 * delta never copies the conversation.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeStateValue, findTranscriptViolations, type Message } from '../../../src/index.js';
import { SUMMARY_HEADING } from '../../../src/machine/index.js';
import {
  actionsOf,
  configArb,
  guard,
  lengthArb,
  NO_SHUTDOWN,
  PLAUSIBLE,
  type Probe,
  runScenario,
  textOf,
} from './scenario.js';

const isUserInputText = (message: Message) =>
  message.role === 'user' && textOf(message.content).startsWith('user input #');

/** What the user typed: the scenario's inputs are plain strings, notes come after in blocks. */
function inputText(message: Message): string {
  if (typeof message.content === 'string') return message.content;
  const [first] = message.content;
  return first?.type === 'text' && 'text' in first ? String(first.text) : '';
}

/** Shuts the agent down and returns the input it reports as discarded. */
function shutDown(probe: Probe): Message[] {
  const step = probe.feed({ kind: 'valid', event: { type: 'ShutdownRequested' } });
  const shutdowns = actionsOf(step.actions, 'Shutdown');
  expect(shutdowns).toHaveLength(1);
  return shutdowns[0]?.discardedInput ?? [];
}

describe('AgentCore properties', () => {
  it('keeps the transcript valid: every request, and every resting point between turns', () => {
    let requests = 0;
    let compactions = 0;
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        runScenario({ g, config, length, profile: PLAUSIBLE }, (step) => {
          const { messages } = step.contextAfter;
          for (const { request } of actionsOf(step.actions, 'SendCompactionRequest')) {
            // The summary is asked for with the part it replaces, ending with the user's turn.
            expect(findTranscriptViolations(request.messages)).toEqual([]);
            expect(request.messages[0]?.role).toBe('user');
            expect(request.messages.at(-1)?.role).toBe('user');
            expect(request.messages.length).toBeLessThan(messages.length);
          }
          for (const compacted of actionsOf(step.actions, 'Compacted')) {
            // The summary comes first, then the messages after the cut, as they were.
            compactions++;
            const before = step.contextBefore.messages;
            expect(compacted.summarised + compacted.kept).toBe(before.length);
            expect(messages[0]).toEqual({
              role: 'user',
              content: [{ type: 'text', text: `${SUMMARY_HEADING}\n\n${compacted.summary}` }],
            });
            const kept = messages.slice(1, 1 + compacted.kept);
            expect(kept).toEqual(before.slice(compacted.summarised));
            expect(kept[0]?.role).toBe('assistant');
          }
          for (const { request } of actionsOf(step.actions, 'SendLlmRequest')) {
            requests++;
            expect(findTranscriptViolations(request.messages)).toEqual([]);
            // A request is for the current transcript, and the model always answers a user turn.
            expect(request.messages).toEqual(messages);
            expect(request.messages[0]?.role).toBe('user');
            expect(request.messages.at(-1)?.role).toBe('user');
          }
          const settling = step.contextAfter.toolRuns.some((run) => run.status === 'cancelling');
          if (step.stateAfter === 'ExecutingTools' || settling) {
            // Only the calls of the latest response are still open, and they are exactly the runs
            // (after an interrupt, until the aborted calls report how they ended).
            const last = messages.at(-1);
            expect(last?.role).toBe('assistant');
            expect(findTranscriptViolations(messages.slice(0, -1))).toEqual([]);
            const calls = Array.isArray(last?.content)
              ? last.content.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []))
              : [];
            expect(calls).toEqual(step.contextAfter.toolRuns.map((run) => run.call.id));
          } else {
            expect(findTranscriptViolations(messages)).toEqual([]);
          }
          const answered =
            step.contextAfter.messages.length > step.contextBefore.messages.length &&
            step.contextBefore.toolRuns.some((run) => run.status !== 'done');
          const leftTools =
            step.stateBefore === 'ExecutingTools' && step.stateAfter !== 'ExecutingTools';
          if (
            (leftTools && !settling) ||
            (answered && step.stateBefore === 'WaitingForUserInput')
          ) {
            // Leaving the tools (done, interrupted or shut down), or learning how the last aborted
            // call ended, answers every call in call order.
            const results = step.contextAfter.messages[step.contextBefore.messages.length];
            const ids = Array.isArray(results?.content)
              ? results.content.map((block) => block.type === 'tool_result' && block.tool_use_id)
              : [];
            expect(ids).toEqual(step.contextBefore.toolRuns.map((run) => run.call.id));
          }
        });
      }),
      // Enough runs that the requests come well over their minimum below on any seed.
      { numRuns: 300 },
    );
    // (Fewer than without the hooks on a turn: blocked prompts start no turn.)
    expect(requests).toBeGreaterThan(400);
    expect(compactions).toBeGreaterThan(10);
  });

  it('loses no user input: each accepted message reaches the transcript, is dropped (and said so) or is in Shutdown.discardedInput, once, in order', () => {
    let dropped = 0;
    let noted = 0;
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, fc.boolean(), (config, g, length, stop) => {
        const accepted: Message[] = [];
        // Inputs whose fate is known, in the order it became known: taken into the transcript,
        // or dropped by the userPromptSubmit hook (or by an interrupt while it decided).
        const settled: Message[] = [];
        const droppedTexts = new Set<string>();
        // Inputs that reached the transcript and then a compaction's summary, in order.
        const summarised: Message[] = [];
        const { probe, events } = runScenario(
          { g, config, length, profile: NO_SHUTDOWN },
          (step) => {
            const { planned } = step;
            for (const drop of actionsOf(step.actions, 'PromptDropped')) {
              // Only the hook's wait drops a prompt, and only the one it was checking.
              expect(config.hooks?.userPromptSubmit).toBe(true);
              expect(drop.prompt).toEqual(step.contextBefore.queue[0]);
              settled.push(drop.prompt);
              droppedTexts.add(inputText(drop.prompt));
              dropped++;
            }
            // After a compaction, what is new follows the summary and the messages it kept.
            const [compacted] = actionsOf(step.actions, 'Compacted');
            const old = step.contextBefore.messages;
            if (compacted !== undefined) {
              summarised.push(...old.slice(0, compacted.summarised).filter(isUserInputText));
            }
            const fresh = step.contextAfter.messages.slice(
              compacted === undefined ? old.length : 1 + compacted.kept,
            );
            settled.push(...fresh.filter(isUserInputText));
            if (planned.kind !== 'valid' || planned.event.type !== 'UserInput') return;
            expect(step.diagnostics).toEqual([]);
            accepted.push(planned.event.message);
            if (describeStateValue(step.stateValueBefore) !== 'WaitingForUserInput.Ready') {
              // Queued while a turn runs, or while the hook checks the prompt ahead of it: not in
              // the transcript of the running turn.
              expect(step.contextAfter.messages.length).toBe(step.contextBefore.messages.length);
              expect(step.contextAfter.queue.at(-1)).toEqual(planned.event.message);
            } else if (config.hooks?.userPromptSubmit === true) {
              // Held for the hook at the head of the queue, and not in the transcript yet.
              expect(step.contextAfter.messages).toEqual(step.contextBefore.messages);
              expect(step.contextAfter.queue).toEqual([planned.event.message]);
            }
            for (const send of actionsOf(step.actions, 'SendLlmRequest')) {
              // A queued message enters the transcript only as the first message of a new turn.
              const fresh = send.request.messages.slice(
                compacted === undefined ? old.length : 1 + compacted.kept,
              );
              const inputs = fresh.filter(isUserInputText);
              expect(inputs.length).toBeLessThanOrEqual(1);
              if (inputs.length === 1) expect(fresh.at(-1)).toBe(inputs[0]);
            }
          },
        );
        guard(config, events, () => {
          const discarded = stop ? shutDown(probe) : probe.core.context.queue;
          const delivered = [...summarised, ...probe.core.context.messages.filter(isUserInputText)];
          // Settled first, in the order they were accepted, then the rest still waiting; each
          // input text is unique, so none is there twice.
          expect([...settled, ...discarded].map(inputText)).toEqual(accepted.map(inputText));
          expect(discarded).toEqual(accepted.slice(settled.length));
          // A dropped prompt never reached the transcript; every other settled one is there.
          expect(delivered.map(inputText)).toEqual(
            settled.map(inputText).filter((text) => !droppedTexts.has(text)),
          );
          // As the user wrote it, or with the hooks' notes after it, in blocks of their own.
          for (const message of delivered) {
            const original = accepted.find((m) => inputText(m) === inputText(message));
            if (isDeepStrictEqual(message, original)) continue;
            noted++;
            const [first, ...notes] = Array.isArray(message.content) ? message.content : [];
            expect(first).toEqual({ type: 'text', text: original?.content });
            expect(notes.length).toBeGreaterThan(0);
            for (const note of notes) {
              expect(note).toEqual({
                type: 'text',
                text: expect.stringMatching(/^\[(userPromptSubmit|stop) hook\] /) as string,
              });
            }
          }
        });
      }),
      { numRuns: 200 },
    );
    // Prompts were dropped, and delivered with a note, often enough to mean something.
    expect(dropped).toBeGreaterThan(30);
    expect(noted).toBeGreaterThan(15);
  });

  it('costs O(1) per delta: streaming never copies or replaces the messages array', () => {
    let deltas = 0;
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        runScenario({ g, config, length, profile: PLAUSIBLE }, (step) => {
          const { planned } = step;
          if (planned.kind !== 'valid' || step.diagnostics.length > 0) return;
          const { event } = planned;
          if (event.type !== 'LlmTextDelta' && event.type !== 'LlmToolCallDelta') return;
          deltas++;
          expect(step.contextAfter.messages).toBe(step.contextBefore.messages);
          expect(step.contextAfter.messages.length).toBe(step.contextBefore.messages.length);
          expect(step.contextAfter.queue).toBe(step.contextBefore.queue);
          if (event.type === 'LlmTextDelta') {
            // The text accumulates in its own field.
            expect(step.contextAfter.streamingText).toBe(
              step.contextBefore.streamingText + event.content,
            );
            expect(step.actions).toEqual([{ type: 'DisplayMessage', text: event.content }]);
          } else {
            expect(step.actions).toEqual([]);
          }
        });
      }),
      { numRuns: 200 },
    );
    expect(deltas).toBeGreaterThan(300);
  });
});
