import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/demo.js';
import { findTranscriptViolations } from '../../src/index.js';

describe('agent-statechart demo', () => {
  it('passes through all seven states and ends with a valid transcript', () => {
    const { states, lines, messages } = runDemo(() => undefined);
    expect(new Set(states)).toEqual(
      new Set([
        'WaitingForUserInput',
        'CallingLlm',
        'Error',
        'ProcessingLlmResponse',
        'ExecutingTools',
        'PostToolsHook',
        'ShuttingDown',
      ]),
    );
    expect(lines).toContain('  ShutdownRequested → ShuttingDown  [Shutdown]');
    expect(messages).toHaveLength(4);
    expect(findTranscriptViolations(messages)).toEqual([]);
  });
});
