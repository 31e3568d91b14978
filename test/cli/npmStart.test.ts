/**
 * `npm start` as a user runs it: the demo command in its own process, at its own pace, with no
 * terminal attached. (test/cli/demo.test.ts checks what the demo does, faster, in-process.)
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { AGENT_STATE_NAMES } from '../../src/index.js';

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
