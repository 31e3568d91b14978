import type { ToolOutcome } from '../../../src/machine/messages.js';

/**
 * The output of a success outcome; fails the test with the error message otherwise.
 *
 * @example
 * expect(successOutput(await runToolCall(registry, call, { workspace }))).toBe('hello');
 */
export function successOutput(outcome: ToolOutcome): unknown {
  if (outcome.status !== 'success') {
    throw new Error(`expected success, got error: ${outcome.error.message}`);
  }
  return 'output' in outcome ? outcome.output : outcome.content;
}

/**
 * The message of an error outcome; fails the test when it succeeded.
 *
 * @example
 * expect(errorMessage(await runToolCall(registry, call, { workspace }))).toBe('no such file');
 */
export function errorMessage(outcome: ToolOutcome): string {
  if (outcome.status !== 'error') {
    throw new Error(`expected an error, got success: ${JSON.stringify(outcome)}`);
  }
  return outcome.error.message;
}
