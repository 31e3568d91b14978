/**
 * The transcript as an append-only log shared by successive snapshots: appending costs O(1),
 * and still every snapshot keeps exactly its own messages, forks included.
 */
import { describe, expect, it } from 'vitest';
import { createActor, transition } from 'xstate';
import {
  AgentCore,
  agentMachine,
  type LlmResponse,
  type Message,
  transcriptOf,
} from '../../src/index.js';

const user = (content: string): Message => ({ role: 'user', content });
const answer = (text: string): LlmResponse => ({
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  stopReason: 'end_turn',
});

/** Runs whole turns: a question and its answer each. */
function turns(core: AgentCore, ...questions: string[]): void {
  for (const question of questions) {
    core.handleEvent({ type: 'UserInput', message: user(question) });
    core.handleEvent({ type: 'LlmCompleted', response: answer(`re: ${question}`) });
  }
}

const contents = (messages: readonly Message[]) =>
  messages.map((message) =>
    typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
  );

describe('the transcript log', () => {
  it('appends in place: the array keeps its identity, messageCount moves', () => {
    const core = new AgentCore();
    turns(core, 'one');
    const log = core.context.messages;
    turns(core, 'two', 'three');
    expect(core.context.messages).toBe(log);
    expect(core.context.messageCount).toBe(6);
    expect(core.context.messages).toHaveLength(6);
  });

  it('never writes to the caller’s initial messages, even frozen ones', () => {
    const initial = Object.freeze([user('earlier'), answer('before').message]) as Message[];
    const core = new AgentCore({}, { messages: initial });
    turns(core, 'now');
    expect(initial).toHaveLength(2);
    expect(contents(core.context.messages)).toEqual([
      'earlier',
      contents([initial[1]!])[0],
      'now',
      contents([answer('re: now').message])[0],
    ]);
  });

  it('keeps every snapshot exact: an old one sees only its own messages', () => {
    const core = new AgentCore();
    turns(core, 'one');
    const stored = core.snapshot();
    const kept = core.context;
    turns(core, 'two');
    expect(stored.context.messages).toHaveLength(2);
    expect(kept.messageCount).toBe(2);
    expect(transcriptOf(kept)).toHaveLength(2);
    expect(transcriptOf(core.context)).toBe(core.context.messages);
  });

  it('forks from one stored snapshot into independent, exact histories', () => {
    const base = new AgentCore();
    turns(base, 'shared');
    const stored = base.snapshot();
    const left = AgentCore.fromSnapshot(stored);
    const right = AgentCore.fromSnapshot(stored);
    turns(left, 'left');
    turns(right, 'right', 'again');
    expect(contents(left.context.messages).filter((text) => !text.startsWith('['))).toEqual([
      'shared',
      'left',
    ]);
    expect(contents(right.context.messages).filter((text) => !text.startsWith('['))).toEqual([
      'shared',
      'right',
      'again',
    ]);
    expect(stored.context.messages).toHaveLength(2);
  });

  it('forks when a transition is taken twice from the same live snapshot', () => {
    const actor = createActor(agentMachine, { input: { messages: [user('hi')] } });
    const start = actor.getSnapshot();
    // Leave the initial transcript: the log becomes the chart's own.
    const [afterFirst] = transition(agentMachine, start, {
      type: 'UserInput',
      message: user('first question'),
    });
    const [done] = transition(agentMachine, afterFirst, {
      type: 'LlmCompleted',
      response: answer('first answer'),
    });
    const [a] = transition(agentMachine, done, { type: 'UserInput', message: user('branch a') });
    const [b] = transition(agentMachine, done, { type: 'UserInput', message: user('branch b') });
    expect(contents(transcriptOf(a.context)).at(-1)).toBe('branch a');
    expect(contents(transcriptOf(b.context)).at(-1)).toBe('branch b');
    expect(transcriptOf(a.context)).toHaveLength(4);
    expect(transcriptOf(b.context)).toHaveLength(4);
    expect(transcriptOf(done.context)).toHaveLength(3);
    // Each branch's request carries its own transcript.
    expect(b.context.messages).toHaveLength(4);
  });

  it('a request built from an old snapshot carries only that snapshot’s messages', () => {
    const core = new AgentCore({ maxRetries: 3 });
    core.handleEvent({ type: 'UserInput', message: user('q') });
    core.handleEvent({ type: 'LlmError', error: { kind: 'server', message: '500' } });
    const waiting = core.snapshot();
    const retried = AgentCore.fromSnapshot(waiting, { maxRetries: 3 });
    const [send] = retried.handleEvent({ type: 'RetryTimeoutFired' });
    expect(send?.type).toBe('SendLlmRequest');
    if (send?.type === 'SendLlmRequest') expect(contents(send.request.messages)).toEqual(['q']);
  });
});
