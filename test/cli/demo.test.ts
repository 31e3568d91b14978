import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type DemoResult, runDemo } from '../../src/cli/demo.js';
import { AGENT_STATE_NAMES, findTranscriptViolations } from '../../src/index.js';

describe('agent-statechart demo', () => {
  // One run of the demo (two processes) for both specifications.
  const lines: string[] = [];
  let run: Promise<DemoResult> | undefined;
  const demo = () =>
    (run ??= runDemo({ print: (line) => lines.push(line), eventDelayMs: 0, keepWorkspace: true }));
  afterAll(async () => {
    const result = await run;
    if (result) await rm(result.workspace, { recursive: true, force: true });
  });

  it('visits all seven states, retries a 529 and makes a real commit', async () => {
    const result = await demo();
    expect(new Set(result.states)).toEqual(new Set(AGENT_STATE_NAMES));
    expect(result.commits).toHaveLength(2);
    expect(result.commits[0]).toMatch(/^[0-9a-f]{7} agent: edit_file changed hello\.txt$/);
    expect(lines).toContain('  retry   attempt 2 in 225 ms');
    expect(lines.some((line) => /^ {2}commit {2}[0-9a-f]{7} \(hello\.txt\)$/.test(line))).toBe(
      true,
    );
    expect(findTranscriptViolations(result.messages)).toEqual([]);
  });

  it('kills its first process with SIGKILL while the tools run, and a new process resumes the stored session: the read re-run, the edit reported interrupted and made once', async () => {
    const result = await demo();
    expect(result.killedBy).toBe('SIGKILL');
    const killed = lines.findIndex((line) =>
      /^killed {4}process 1 \(pid \d+\) with SIGKILL while read_file and edit_file were running$/.test(
        line,
      ),
    );
    expect(killed).toBeGreaterThan(0);
    // Both calls had started in process 1, neither had finished.
    const before = lines.slice(0, killed);
    expect(before).toContain(
      '  tool    edit_file {"path":"hello.txt","old_string":"Hello","new_string":"Hi"}',
    );
    expect(before.some((line) => line.includes('→'))).toBe(false);
    const after = lines.slice(killed);
    expect(after).toContain('  re-run       read_file {"path":"hello.txt"} (read-only)');
    expect(after).toContain(
      '  interrupted  edit_file {"path":"hello.txt","old_string":"Hello","new_string":"Hi"}: the process stopped while this call was running; it may or may not have taken effect',
    );
    expect(
      after.some((line) =>
        /^process 2 \(pid \d+\) opens the stored session: it stopped in ExecutingTools$/.test(line),
      ),
    ).toBe(true);
    // The model is told, sees from the read that the edit did not happen, and edits once.
    const results = result.messages.flatMap((message) =>
      typeof message.content === 'string'
        ? []
        : message.content.filter((block) => block.type === 'tool_result'),
    );
    expect(results.filter((block) => 'is_error' in block && block.is_error)).toHaveLength(1);
    expect(JSON.stringify(results)).toContain('may or may not have taken effect');
    expect(lines.filter((line) => line === '  tool    edit_file → success')).toHaveLength(1);
    expect(await readFile(join(result.workspace, 'hello.txt'), 'utf8')).toBe('Hi, world\n');
  });
});
