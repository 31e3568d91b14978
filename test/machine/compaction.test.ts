/**
 * Compaction in pure mode: when a request would pass the threshold the chart summarises the older
 * part of the transcript first (`CallingLlm.Compacting`), a `Compact` event does it between turns
 * (`WaitingForUserInput.Compacting`), the `preCompact` hook may veto it or add instructions, and
 * an interrupt, a shutdown, a failed summary or a restore leave a transcript the API accepts.
 */
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  type AgentConfig,
  AgentCore,
  type AgentEvent,
  type LlmRequest,
  type Message,
  findTranscriptViolations,
  SUMMARY_HEADING,
} from '../../src/index.js';
import { actionsOf, call, completed, userInput } from '../support/events.js';

/** A context window small enough that a few exchanges fill it. */
const SMALL: AgentConfig = {
  compaction: { contextWindow: 2_000, threshold: 0.5, keepRecentTokens: 200 },
  tools: [{ name: 'read_file', mutating: false }],
};
/** The same, with the preCompact hook on. */
const HOOKED: AgentConfig = { ...SMALL, hooks: { preCompact: true } };

/** A response the way the API counts it: its request's size, roughly, as input tokens. */
function answered(
  text: string,
  request: LlmRequest | undefined,
  calls = [] as ReturnType<typeof call>[],
): AgentEvent {
  const event = completed(text, calls) as Extract<AgentEvent, { type: 'LlmCompleted' }>;
  const input = request === undefined ? 0 : Math.ceil(JSON.stringify(request.messages).length / 4);
  return {
    ...event,
    response: { ...event.response, usage: { input_tokens: input, output_tokens: 20 } },
  };
}

/** The first action of one type, narrowed. */
function sent<T extends AgentAction['type']>(actions: AgentAction[], type: T) {
  return actionsOf(actions, type)[0];
}

/** Exchanges of about `size` characters each, until a request would be compacted. */
function fill(core: AgentCore, exchanges: number, size = 400): AgentAction[] {
  let last: AgentAction[] = [];
  for (let index = 0; index < exchanges; index++) {
    last = core.handleEvent(userInput(`question ${index}: ${'q'.repeat(size)}`));
    const request = sent(last, 'SendLlmRequest')?.request;
    if (request === undefined) return last;
    core.handleEvent(answered(`answer ${index}: ${'a'.repeat(size)}`, request));
  }
  return last;
}

/**
 * A core whose sixth exchange's request waits on a compaction: the summary call under way, or,
 * with the preCompact hook on, the hook's answer.
 */
function compacting(config: AgentConfig = SMALL): AgentCore {
  const core = new AgentCore(config);
  fill(core, 6);
  return core;
}

/** What the Messages API would refuse in a request's messages, a first message not the user's too. */
function transcriptProblems(messages: readonly Message[]): string[] {
  const problems = findTranscriptViolations(messages);
  if (messages[0]?.role !== 'user') problems.push('the first message is not the user’s');
  return problems;
}

describe('compaction in pure mode', () => {
  it('summarises the older part before a request that would pass the threshold', () => {
    const core = new AgentCore(SMALL);
    const actions = fill(core, 6);
    const summaryCall = sent(actions, 'SendCompactionRequest');
    expect(summaryCall?.trigger).toBe('auto');
    expect(core.snapshot().state).toBe('CallingLlm');
    expect(sent(actions, 'SendLlmRequest')).toBeUndefined();
    // The summary request: the transcript up to the cut, the instructions last, no tools called.
    const last = summaryCall!.request.messages.at(-1)!;
    expect(JSON.stringify(last)).toContain('write a summary of the conversation');
    expect(transcriptProblems(summaryCall!.request.messages)).toEqual([]);

    const before = core.context.messages;
    const after = core.handleEvent(
      answered('The user asked six questions about q.', summaryCall!.request),
    );
    const compacted = sent(after, 'Compacted')!;
    expect(compacted).toMatchObject({
      trigger: 'auto',
      summary: 'The user asked six questions about q.',
    });
    const request = sent(after, 'SendLlmRequest')!.request;
    // The summary first, then the messages after the cut, word for word.
    expect(JSON.stringify(request.messages[0])).toContain(SUMMARY_HEADING);
    expect(request.messages.slice(1)).toEqual(before.slice(before.length - compacted.kept));
    expect(compacted.summarised + compacted.kept).toBe(before.length);
    expect(core.context.window.compactions).toBe(1);
    expect(sent(after, 'UsageReported')?.call.output_tokens).toBe(20);
    expect(transcriptProblems(request.messages)).toEqual([]);
  });

  it('never cuts between a tool_use and its tool_result', () => {
    const core = new AgentCore({
      ...SMALL,
      compaction: { contextWindow: 2_000, threshold: 0.5, keepRecentTokens: 0 },
    });
    let actions = core.handleEvent(userInput(`read them all ${'q'.repeat(300)}`));
    for (let round = 0; round < 12; round++) {
      const request = sent(actions, 'SendLlmRequest')?.request;
      const summary = sent(actions, 'SendCompactionRequest');
      if (summary !== undefined) {
        expect(transcriptProblems(summary.request.messages)).toEqual([]);
        actions = core.handleEvent(answered('Reading files one by one.', summary.request));
        const next = sent(actions, 'SendLlmRequest')!.request;
        expect(transcriptProblems(next.messages)).toEqual([]);
        // The kept part starts with the assistant's tool call, answered right after.
        expect(next.messages[1]?.role).toBe('assistant');
        return;
      }
      core.handleEvent(
        answered('Reading.', request, [call(`t${round}`, 'read_file', { path: `f${round}` })]),
      );
      actions = core.handleEvent({
        type: 'ToolCompleted',
        callId: `t${round}`,
        outcome: { status: 'success', output: 'x'.repeat(300) },
      });
    }
    throw new Error('no compaction within 12 tool rounds');
  });

  it('compacts on a Compact event between turns, with its instructions, and queues input meanwhile', () => {
    const core = new AgentCore({ ...SMALL, compaction: false });
    fill(core, 3);
    const actions = core.handleEvent({
      type: 'Compact',
      instructions: 'Keep every question number.',
    });
    const summaryCall = sent(actions, 'SendCompactionRequest')!;
    expect(summaryCall.trigger).toBe('manual');
    expect(JSON.stringify(summaryCall.request.messages.at(-1))).toContain(
      'Also: Keep every question number.',
    );
    expect(core.snapshot().state).toBe('WaitingForUserInput');
    expect(core.handleEvent(userInput('and now?'))).toEqual([]);
    const after = core.handleEvent(
      answered('Three questions, numbered 0 to 2.', summaryCall.request),
    );
    expect(sent(after, 'Compacted')?.trigger).toBe('manual');
    // The queued input starts its turn on the compacted transcript.
    const request = sent(after, 'SendLlmRequest')!.request;
    expect(JSON.stringify(request.messages[0])).toContain('Three questions, numbered 0 to 2.');
    expect(request.messages.at(-1)).toEqual({ role: 'user', content: 'and now?' });
  });

  it('says there is nothing to compact in a session of one exchange', () => {
    const core = new AgentCore(SMALL);
    fill(core, 1);
    const actions = core.handleEvent({ type: 'Compact' });
    expect(actions).toEqual([
      expect.objectContaining({ type: 'CompactionSkipped', trigger: 'manual' }),
    ]);
    expect(core.context.messages).toHaveLength(2);
  });

  it('refuses Compact during a turn', () => {
    const codes: string[] = [];
    const core = new AgentCore(SMALL, { onDiagnostic: (d) => codes.push(d.code) });
    core.handleEvent(userInput('hi'));
    expect(core.handleEvent({ type: 'Compact' })).toEqual([]);
    expect(codes).toHaveLength(1);
  });

  it('lets the preCompact hook veto a compaction: the request goes out whole', () => {
    const core = new AgentCore(HOOKED);
    const actions = fill(core, 6);
    const hook = sent(actions, 'RunPreCompactHook')!;
    expect(hook).toMatchObject({ trigger: 'auto', instructions: [] });
    expect(hook.summarised).toBeGreaterThan(1);
    const before = core.context.messages;
    const after = core.handleEvent({
      type: 'PreCompactDecision',
      decision: 'block',
      reason: 'audit',
    });
    expect(sent(after, 'CompactionSkipped')?.reason).toContain('audit');
    expect(sent(after, 'SendLlmRequest')!.request.messages).toBe(before);
  });

  it('adds the preCompact hook’s instructions, and goes on when the hook fails', () => {
    const core = compacting(HOOKED);
    const after = core.handleEvent({
      type: 'PreCompactDecision',
      instructions: 'Name every file.',
    });
    expect(JSON.stringify(sent(after, 'SendCompactionRequest')!.request.messages.at(-1))).toContain(
      'Also: Name every file.',
    );

    const failing = compacting(HOOKED);
    const failed = failing.handleEvent({
      type: 'PreCompactDecision',
      error: 'the preCompact hook failed: boom',
    });
    expect(sent(failed, 'DisplayError')?.message).toContain('boom');
    expect(sent(failed, 'SendCompactionRequest')).toBeDefined();
  });

  it('sends the request whole when the summary call fails or says nothing', () => {
    const core = compacting();
    const before = core.context.messages;
    const failed = core.handleEvent({
      type: 'LlmError',
      error: { kind: 'overloaded', message: 'Overloaded' },
    });
    expect(sent(failed, 'DisplayError')?.message).toContain('Compaction failed (overloaded)');
    expect(sent(failed, 'SendLlmRequest')!.request.messages).toBe(before);
    expect(core.context.window.compactions).toBe(0);

    const empty = compacting();
    const said = empty.handleEvent(answered('   ', undefined));
    expect(sent(said, 'CompactionSkipped')?.reason).toContain('no summary');
    expect(sent(said, 'SendLlmRequest')).toBeDefined();
  });

  it('leaves the transcript as it was on an interrupt or a shutdown during the summary', () => {
    const core = compacting();
    const before = core.context.messages;
    const interrupted = core.handleEvent({ type: 'Interrupt' });
    expect(interrupted).toContainEqual({ type: 'Cancel', llm: true });
    expect(core.snapshot().state).toBe('WaitingForUserInput');
    expect(core.context.messages).toBe(before);
    expect(core.context.window.compacting).toBeNull();
    // A late summary of the abandoned call changes nothing.
    expect(core.handleEvent(answered('late', undefined))).toEqual([]);

    const stopping = compacting(HOOKED);
    const messages = stopping.context.messages;
    const shut = stopping.handleEvent({ type: 'ShutdownRequested' });
    expect(shut).toContainEqual({ type: 'Cancel', hook: true });
    expect(stopping.snapshot().state).toBe('ShuttingDown');
    expect(stopping.context.messages).toBe(messages);
  });

  it('asks for the summary again when restored in the middle of it', () => {
    const core = compacting();
    const stored = JSON.parse(JSON.stringify(core.snapshot())) as ReturnType<AgentCore['snapshot']>;
    const restored = AgentCore.fromSnapshot(stored, SMALL);
    const resumed = restored.handleEvent({ type: 'Resume' });
    expect(sent(resumed, 'SendCompactionRequest')?.trigger).toBe('auto');
    const after = restored.handleEvent(answered('Summary after a restart.', undefined));
    expect(sent(after, 'Compacted')).toBeDefined();
  });

  it('keeps every request of a 500-turn session within the context window, and every transcript valid', () => {
    const contextWindow = 8_000;
    const core = new AgentCore({
      compaction: { contextWindow, threshold: 0.8, keepRecentTokens: 1_500 },
      tools: [{ name: 'read_file', mutating: false }],
    });
    let compactions = 0;
    let largest = 0;
    const check = (request: LlmRequest) => {
      const tokens = Math.ceil(JSON.stringify(request.messages).length / 4);
      largest = Math.max(largest, tokens);
      expect(tokens).toBeLessThanOrEqual(contextWindow);
      expect(transcriptProblems(request.messages)).toEqual([]);
    };
    /** Plays the model: answers each request, calling a tool every other turn. */
    const play = (actions: AgentAction[], turn: number): void => {
      for (let guard = 0; guard < 10; guard++) {
        const summary = sent(actions, 'SendCompactionRequest');
        if (summary !== undefined) {
          check(summary.request);
          compactions += 1;
          actions = core.handleEvent(
            answered(`Summary ${compactions}: ${'s'.repeat(600)}`, summary.request),
          );
          continue;
        }
        const request = sent(actions, 'SendLlmRequest')?.request;
        if (request === undefined) return;
        check(request);
        const asked = request.messages.at(-1)!;
        const toolTurn = turn % 2 === 0 && typeof asked.content === 'string';
        if (toolTurn) {
          core.handleEvent(
            answered('Let me look.', request, [
              call(`t${turn}`, 'read_file', { path: `f${turn}.ts` }),
            ]),
          );
          actions = core.handleEvent({
            type: 'ToolCompleted',
            callId: `t${turn}`,
            outcome: { status: 'success', output: `file ${turn}: ${'x'.repeat(800)}` },
          });
          continue;
        }
        actions = core.handleEvent(answered(`Done with ${turn}: ${'a'.repeat(300)}`, request));
      }
      throw new Error(`turn ${turn} did not end`);
    };
    for (let turn = 0; turn < 500; turn++) {
      play(core.handleEvent(userInput(`task ${turn}: ${'q'.repeat(200)}`)), turn);
      expect(core.snapshot().state).toBe('WaitingForUserInput');
    }
    expect(compactions).toBeGreaterThan(20);
    expect(core.context.window.compactions).toBe(compactions);
    expect(largest).toBeGreaterThan(contextWindow * 0.5);
    // The live transcript stays bounded: about the threshold, never the whole session.
    expect(JSON.stringify(core.context.messages).length / 4).toBeLessThan(contextWindow);
  });
});
