/**
 * A model (or a proxy in front of it) that reuses tool_use ids, within one response or from an
 * earlier one. The API never accepts an id twice in a request, and the chart tracks each call by
 * its id; so the recorded response carries unique ids, each call's outcome is kept, and a call
 * that repeated an id of its own response is not run and the model is told why.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findTranscriptViolations, type Message, type ToolCall } from '../../../src/index.js';
import { toolCallsOf } from '../../../src/machine/transcript.js';
import { actionsOf, configArb, lengthArb, REUSING_IDS, runScenario } from './scenario.js';

function toolUseIds(messages: readonly Message[]): string[] {
  return messages.flatMap((message) => toolCallsOf(message).map((call) => call.id));
}

/** Positions of calls whose id an earlier call of the same response already has. */
function repeatedPositions(calls: readonly ToolCall[]): number[] {
  return calls.flatMap((call, index) =>
    calls.slice(0, index).some((earlier) => earlier.id === call.id) ? [index] : [],
  );
}

describe('AgentCore properties', () => {
  it('keeps every request valid and every outcome when tool_use ids repeat', () => {
    const seen = { repeatedInResponse: 0, reusedFromEarlier: 0, outcomes: 0, requests: 0 };
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        runScenario({ g, config, length, profile: REUSING_IDS }, (step) => {
          for (const { request } of actionsOf(step.actions, 'SendLlmRequest')) {
            seen.requests++;
            expect(findTranscriptViolations(request.messages)).toEqual([]);
          }
          const { planned, contextBefore, contextAfter } = step;
          if (planned.kind !== 'valid' || step.diagnostics.length > 0) return;
          const { event } = planned;
          if (event.type === 'LlmCompleted') {
            const sent = toolCallsOf(event.response.message);
            if (sent.length === 0) return;
            const earlier = new Set(toolUseIds(contextBefore.messages));
            const recorded = toolCallsOf(contextAfter.messages[contextBefore.messages.length]!);
            // Same calls in the same order, each under an id nothing else has.
            expect(recorded.map(({ name, input }) => ({ name, input }))).toEqual(
              sent.map(({ name, input }) => ({ name, input })),
            );
            expect(new Set(toolUseIds(contextAfter.messages)).size).toBe(
              toolUseIds(contextAfter.messages).length,
            );
            const repeated = repeatedPositions(sent);
            seen.repeatedInResponse += repeated.length;
            seen.reusedFromEarlier += sent.filter(
              (call, index) => earlier.has(call.id) && !repeated.includes(index),
            ).length;
            for (const index of repeated) {
              // The model is told, in this call's result, what happened and what to do.
              const run = contextAfter.toolRuns.find((r) => r.call.id === recorded[index]!.id);
              expect(run?.status).toBe('done');
              expect(run?.outcome).toMatchObject({
                status: 'error',
                error: {
                  message: expect.stringMatching(
                    /^not run: this call repeated the tool_use id '.+' of an earlier call in the same response/,
                  ) as string,
                },
              });
            }
          }
          const wasRunning = (callId: string) =>
            contextBefore.toolRuns.some(
              (run) => run.call.id === callId && run.status === 'running',
            );
          if (event.type === 'ToolCompleted' && wasRunning(event.callId)) {
            // The outcome is kept for exactly this call, and no other run takes it. (A call an
            // interrupt is cancelling gets its outcome in the interrupt's own words.)
            seen.outcomes++;
            const runs = contextAfter.toolRuns.filter((run) => run.call.id === event.callId);
            expect(runs).toHaveLength(1);
            expect(runs[0]?.outcome).toEqual(event.outcome);
            const others = contextAfter.toolRuns.filter((run) => run.call.id !== event.callId);
            expect(others).toEqual(
              contextBefore.toolRuns.filter((run) => run.call.id !== event.callId),
            );
          }
        });
      }),
      { numRuns: 300 },
    );
    expect(seen.repeatedInResponse).toBeGreaterThan(30);
    expect(seen.reusedFromEarlier).toBeGreaterThan(30);
    expect(seen.outcomes).toBeGreaterThan(100);
    expect(seen.requests).toBeGreaterThan(300);
  });
});
