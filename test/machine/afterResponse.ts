/** What a response makes the chart do, past what every completed response reports first. */
import { expect } from 'vitest';
import type { AgentAction, AgentCore, ToolCall } from '../../src/index.js';
import { completed } from '../support/events.js';

/**
 * Feeds `core` a response calling `calls` and returns its actions after `LlmCallEnded` and
 * `UsageReported`, which every completed response reports first (and which are checked here).
 */
export function afterResponse(core: AgentCore, calls: ToolCall[]): AgentAction[] {
  const transcriptIndex = core.context.messages.length;
  const [ended, reported, ...actions] = core.handleEvent(completed(null, calls));
  expect(ended).toEqual({ type: 'LlmCallEnded', status: 'completed', transcriptIndex });
  expect(reported?.type).toBe('UsageReported');
  return actions;
}
