/**
 * Every command takes `--help` (or `-h`), wherever it stands among the command's arguments, and
 * says how to use that command without doing anything else.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from './cliProcess.js';

const COMMANDS = ['run', 'mcp-serve', 'sessions', 'demo', 'inspect', 'diagram', 'help'];

describe.concurrent('agent-statechart --help', { timeout: 60_000 }, () => {
  it('lists every command in its overview', async () => {
    const { code, stdout } = await runCli(['help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^usage: agent-statechart <command> \[options\]/);
    for (const command of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  for (const command of COMMANDS) {
    it(`describes ${command} on ${command} --help, and does nothing else`, async () => {
      const { code, stdout, stderr } = await runCli([command, '--help']);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout).toMatch(new RegExp(`^usage: agent-statechart ${command}\\b`));
    });
  }

  it('takes -h, and --help after other arguments', async () => {
    for (const args of [
      ['sessions', '-h'],
      ['sessions', 'list', '--help'],
      ['sessions', 'show', 'missing-session', '--store', '/nonexistent/sessions.db', '--help'],
      ['run', '--mode', 'plan', '--help'],
    ]) {
      const { code, stdout, stderr } = await runCli(args);
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: '' });
      expect(stdout).toMatch(
        /^usage: agent-statechart (sessions list \| show ID \| fork ID NEW_ID|run) /,
      );
    }
  });
});
