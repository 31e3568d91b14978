/**
 * Properties at the edge of what the Messages API accepts, found while building the model-based
 * properties: a response whose `tool_use` blocks cannot be answered is malformed, and a partial
 * message kept after an early turn ending must not be a blank text block (the API answers 400
 * "messages: text content blocks must contain non-whitespace text").
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AgentAction,
  AgentCore,
  type AgentDiagnosticCode,
  type AgentEvent,
  type ContentBlock,
  type Message,
} from '../../../src/index.js';

const hello: AgentEvent = { type: 'UserInput', message: { role: 'user', content: 'fix the bug' } };

/** Text blocks the Messages API rejects: empty or whitespace only. */
function blankTextBlocks(messages: readonly Message[]): string[] {
  const found: string[] = [];
  messages.forEach((message, index) => {
    if (typeof message.content === 'string') return;
    for (const block of message.content) {
      if (block.type !== 'text') continue;
      const { text } = block as { text?: unknown };
      if (typeof text === 'string' && text.trim() === '') {
        found.push(
          `message ${index} (${message.role}) has a blank text block ${JSON.stringify(text)}`,
        );
      }
    }
  });
  return found;
}

const sendRequests = (actions: AgentAction[]) =>
  actions.flatMap((action) => (action.type === 'SendLlmRequest' ? [action.request] : []));

describe('AgentCore properties', () => {
  it('refuses an LlmCompleted whose tool_use block has no string id or name, as MALFORMED_EVENT', () => {
    const unanswerable: unknown[] = [
      { type: 'tool_use', name: 'bash', input: { command: 'ls' } },
      { type: 'tool_use', id: 42, name: 'bash', input: { command: 'ls' } },
      { type: 'tool_use', id: null, name: 'read_file', input: {} },
      { type: 'tool_use', id: 'toolu_1', input: {} },
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...unanswerable),
        fc.boolean(),
        fc.boolean(),
        (bad, textFirst, withValidCall) => {
          const codes: AgentDiagnosticCode[] = [];
          const core = new AgentCore({}, { onDiagnostic: (d) => codes.push(d.code) });
          core.handleEvent(hello);
          const content: unknown[] = [bad];
          if (textFirst) content.unshift({ type: 'text', text: 'Running it.' });
          if (withValidCall) {
            content.push({ type: 'tool_use', id: 'toolu_ok', name: 'read_file', input: {} });
          }
          const before = core.context;
          const actions = core.handleEvent({
            type: 'LlmCompleted',
            response: {
              message: { role: 'assistant', content: content as ContentBlock[] },
              stopReason: 'tool_use',
            },
          });
          // Accepting it leaves a call no ToolCompleted can ever match (its callId must be a
          // string equal to the id): the agent waits in ExecutingTools until interrupted, and the
          // stored transcript has a tool_use/tool_result pair the API rejects.
          expect(actions).toEqual([]);
          expect(core.state).toBe('CallingLlm');
          expect(core.context).toBe(before);
          expect(codes).toEqual(['MALFORMED_EVENT']);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('keeps no blank text block when a turn ends early after whitespace-only deltas', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(' ', '\n', '\n\n', '\t', '\r\n'), { minLength: 1, maxLength: 4 }),
        fc.constantFrom('Interrupt', 'ShutdownRequested'),
        (pieces, ending) => {
          const core = new AgentCore();
          core.handleEvent(hello);
          for (const content of pieces) core.handleEvent({ type: 'LlmTextDelta', content });
          core.handleEvent({ type: ending });
          expect(blankTextBlocks(core.context.messages)).toEqual([]);
          if (ending === 'Interrupt') {
            const next = core.handleEvent({
              type: 'UserInput',
              message: { role: 'user', content: 'go on' },
            });
            for (const request of sendRequests(next)) {
              expect(blankTextBlocks(request.messages)).toEqual([]);
            }
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
