import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/demo.js';
import { AGENT_STATE_NAMES, findTranscriptViolations } from '../../src/index.js';

describe('agent-statechart demo', () => {
  it('visits all seven states, retries a 529 and makes a real commit', async () => {
    const lines: string[] = [];
    const result = await runDemo({ print: (line) => lines.push(line), eventDelayMs: 0 });
    expect(new Set(result.states)).toEqual(new Set(AGENT_STATE_NAMES));
    expect(result.commits).toHaveLength(2);
    expect(result.commits[0]).toMatch(/^[0-9a-f]{7} agent: edit_file changed hello\.txt$/);
    expect(lines).toContain('  retry   attempt 2 in 225 ms');
    expect(lines.some((line) => /^ {2}commit {2}[0-9a-f]{7} \(hello\.txt\)$/.test(line))).toBe(
      true,
    );
    expect(findTranscriptViolations(result.messages)).toEqual([]);
    expect(result.messages).toHaveLength(4);
  });
});

describe('agent-statechart demo (the command npm start runs)', () => {
  it('serves the inspector page, prints its address first, and exits when no terminal is attached', async () => {
    const root = join(import.meta.dirname, '../..');
    const { stdout } = await promisify(execFile)(
      join(root, 'node_modules/.bin/tsx'),
      [join(root, 'src/cli/main.ts'), 'demo'],
      { cwd: root, timeout: 60_000 },
    );
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^inspector http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(stdout).toContain(`states visited: ${AGENT_STATE_NAMES.join(', ')}`.slice(0, 40));
    expect(stdout).toMatch(/commits:\n {2}[0-9a-f]{7} agent: edit_file changed hello\.txt/);
  });
});
