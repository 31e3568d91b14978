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
