/**
 * `sessions show` says in a few words what each hook answered (and what a `Compact` asked to
 * keep), as it says what every other event of the log was.
 */
import { expect, it } from 'vitest';
import { describeEntry } from '../../src/cli/describeSession.js';
import type { AgentEvent } from '../../src/index.js';

/** The entry's line, its columns' spacing made one space. */
const line = (data: AgentEvent) =>
  describeEntry({ seq: 7, at: 0, kind: 'event', data }).replace(/ {2,}/g, ' ');

it('describes each hook answer: its decision, reason, note, new input, or failure', () => {
  expect(
    line({ type: 'PreToolUseDecision', callId: 't1', decision: 'deny', reason: 'no' }),
  ).toContain('PreToolUseDecision t1 deny · no');
  expect(line({ type: 'PreToolUseDecision', callId: 't1', input: { path: 'a' } })).toContain(
    't1 no decision · new input {"path":"a"}',
  );
  expect(line({ type: 'PostToolUseResult', callId: 't2', context: 'lint ok' })).toContain(
    't2 note: lint ok',
  );
  expect(
    line({ type: 'UserPromptSubmitDecision', decision: 'block', reason: 'holds a key' }),
  ).toContain('UserPromptSubmitDecision blocked · holds a key');
  expect(line({ type: 'UserPromptSubmitDecision', context: 'branch main' })).toContain(
    'let through · note: branch main',
  );
  expect(line({ type: 'StopDecision', decision: 'continue', reason: 'run the tests' })).toContain(
    'StopDecision go on · run the tests',
  );
  expect(line({ type: 'StopDecision' })).toContain('StopDecision end the turn');
  expect(line({ type: 'StopDecision', error: 'the stop hook failed: boom' })).toContain(
    'StopDecision failed: the stop hook failed: boom',
  );
});

it('describes the preCompact hook’s answer and a Compact asked for', () => {
  expect(line({ type: 'PreCompactDecision', decision: 'block', reason: 'mid-refactor' })).toContain(
    'PreCompactDecision blocked · mid-refactor',
  );
  expect(line({ type: 'PreCompactDecision', instructions: 'keep the file list' })).toContain(
    'PreCompactDecision let through · also keep: keep the file list',
  );
  expect(line({ type: 'PreCompactDecision', error: 'the preCompact hook failed: boom' })).toContain(
    'PreCompactDecision failed: the preCompact hook failed: boom',
  );
  expect(line({ type: 'Compact', instructions: 'the open bugs' })).toContain(
    'Compact keep: the open bugs',
  );
  expect(line({ type: 'Compact' })).toMatch(/Compact$/);
});
