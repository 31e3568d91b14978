/**
 * A server-side code execution container named by a response is passed back with every later
 * request (pure mode), so the work in it carries over.
 */
import { describe, expect, it } from 'vitest';
import { AgentCore, type LlmRequest, type LlmResponse } from '../../src/index.js';
import { userInput } from '../support/events.js';

const answer = (text: string, extra: Partial<LlmResponse> = {}): LlmResponse => ({
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  stopReason: 'end_turn',
  ...extra,
});

function requestOf(actions: ReturnType<AgentCore['handleEvent']>): LlmRequest | undefined {
  for (const action of actions) if (action.type === 'SendLlmRequest') return action.request;
  return undefined;
}

describe('a code execution container', () => {
  it('is sent back with every request after a response named it, until another is named', () => {
    const core = new AgentCore();
    expect(requestOf(core.handleEvent(userInput('one')))).not.toHaveProperty('container');
    const container = { id: 'container_1', expires_at: '2026-07-01T12:00:00Z' };
    core.handleEvent({ type: 'LlmCompleted', response: answer('Ran it.', { container }) });
    expect(core.context.containerId).toBe('container_1');
    expect(requestOf(core.handleEvent(userInput('two')))?.container).toBe('container_1');
    // A response that used no container leaves the one in use.
    core.handleEvent({ type: 'LlmCompleted', response: answer('Thinking.') });
    expect(requestOf(core.handleEvent(userInput('three')))?.container).toBe('container_1');
    core.handleEvent({
      type: 'LlmCompleted',
      response: answer('New one.', { container: { id: 'container_2' } }),
    });
    expect(requestOf(core.handleEvent(userInput('four')))?.container).toBe('container_2');
  });

  it('survives a snapshot, and a snapshot from before containers were kept restores without one', () => {
    const core = new AgentCore();
    core.handleEvent(userInput('one'));
    core.handleEvent({
      type: 'LlmCompleted',
      response: answer('Ran it.', { container: { id: 'container_1' } }),
    });
    const stored = JSON.parse(JSON.stringify(core.snapshot())) as ReturnType<AgentCore['snapshot']>;
    const restored = AgentCore.fromSnapshot(stored);
    expect(requestOf(restored.handleEvent(userInput('two')))?.container).toBe('container_1');
    const { containerId: _containerId, ...older } = stored.context;
    const fromOlder = AgentCore.fromSnapshot({
      ...stored,
      context: older as typeof stored.context,
    });
    expect(fromOlder.context.containerId).toBeNull();
  });
});
