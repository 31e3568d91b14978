/**
 * Stored sessions on the command line, each command a real process: `run --session NAME` keeps
 * the session in the workspace's git-ignored store and resumes it — after a quit, and after the
 * process was killed with SIGKILL while a tool ran — and `sessions list | show | rm` read it,
 * saying what a session waits for (the model's questions among it).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import { findTranscriptViolations, SessionCore } from '../../src/index.js';
import { cliChartConfig } from '../../src/cli/sessionConfig.js';
import { openSession } from '../../src/persistence/openSession.js';
import { createSqliteSessionStore } from '../../src/persistence/sqliteSessionStore.js';
import { runCli, startCli } from './cliProcess.js';

const exec = promisify(execFile);

/** A git workspace with one commit, deleted when the test ends. */
async function gitWorkspace(onTestFinished: (cleanup: OnTestFinishedHandler) => void) {
  const workspace = await mkdtemp(join(tmpdir(), 'cli-sessions-'));
  onTestFinished(() => rm(workspace, { recursive: true, force: true }));
  for (const args of [
    ['init', '-q'],
    ['config', 'user.name', 'Test'],
    ['config', 'user.email', 'test@example.com'],
    ['commit', '-q', '--allow-empty', '-m', 'initial'],
  ]) {
    await exec('git', args, { cwd: workspace });
  }
  return workspace;
}

/** Waits until `path` holds `content`: a shell opens a file for `>>` before it writes, so existing is not enough. */
async function waitForContent(path: string, content: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await readFile(path, 'utf8').catch(() => undefined);
    if (found === content) return;
    if (Date.now() > deadline) throw new Error(`${path} never held ${JSON.stringify(content)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.concurrent('agent-statechart run --session', { timeout: 90_000 }, () => {
  it('keeps the session in the workspace, out of git, and goes on from it in a new process; sessions list, show and rm read it', async ({
    onTestFinished,
  }) => {
    const workspace = await gitWorkspace(onTestFinished);
    const run = ['run', '--workspace', workspace, '--mode', 'acceptEdits', '--session', 'notes'];
    const first = await runCli(run, ['write notes.txt buy milk']);
    expect(first.code, first.stderr).toBe(0);
    const database = join(workspace, '.agent-statechart', 'sessions.db');
    expect(first.stdout).toContain(`session notes · new, stored in ${database}`);
    expect(first.stdout).toMatch(/⎇ committed [0-9a-f]{7}: notes\.txt/);
    // The store ignores itself: neither the auto-commit nor `git status` sees it.
    expect(await readFile(join(workspace, '.agent-statechart', '.gitignore'), 'utf8')).toMatch(
      /^\*$/m,
    );
    const { stdout: status } = await exec('git', ['status', '--porcelain', '--ignored=no'], {
      cwd: workspace,
    });
    expect(status).toBe('');
    const { stdout: tracked } = await exec('git', ['ls-files'], { cwd: workspace });
    expect(tracked.trim()).toBe('notes.txt');

    const second = await runCli(run, ['read notes.txt']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`session notes · resumed from ${database} · 4 messages`);
    expect(second.stdout).toContain('it was at rest: nothing was in flight');
    expect(second.stdout).toContain('offline model> Result:\nbuy milk');

    const listed = await runCli(['sessions', 'list', '--workspace', workspace]);
    expect(listed.stdout).toContain(`sessions in ${database}`);
    expect(listed.stdout).toMatch(/^ID +STATE +MESSAGES +ENTRIES +UPDATED$/m);
    expect(listed.stdout).toMatch(/^notes +WaitingForUserInput +8 +\d+ +\d{4}-\d\d-\d\dT/m);

    const shown = await runCli(['sessions', 'show', 'notes', '--store', database]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('  state     WaitingForUserInput');
    expect(shown.stdout).toContain(`"mode":"acceptEdits"`);
    expect(shown.stdout).toContain('transcript (8 messages)');
    expect(shown.stdout).toMatch(/^ +1 {2}user {7}write notes\.txt buy milk$/m);
    expect(shown.stdout).toMatch(
      /^ +\d+ {2}\+\d+\.\d{3} s {2}UserInput {2}write notes\.txt buy milk$/m,
    );
    expect(shown.stdout).toMatch(/started {2}write_file toolu_\w+ \(mutating\)/);
    expect(shown.stdout).toMatch(/PostToolsHookCompleted {2}committed/);
    expect(shown.stdout).toMatch(/started {2}read_file toolu_\w+ \(read-only\)/);

    const missing = await runCli(['sessions', 'show', 'nope', '--workspace', workspace]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`there is no session 'nope' in ${database}`);

    const unknownRm = await runCli(['sessions', 'rm', 'nope', '--workspace', workspace]);
    expect(unknownRm.code).toBe(1);
    expect(unknownRm.stderr).toContain(`there is no session 'nope' in ${database}`);

    const removed = await runCli(['sessions', 'rm', 'notes', '--workspace', workspace]);
    expect(removed.stdout).toContain(`removed session notes from ${database}`);
    expect((await runCli(['sessions', 'list', '--workspace', workspace])).stdout).toContain(
      `no sessions in ${database}`,
    );
  });

  it('resumes a session whose process was killed with SIGKILL while a command ran: the command is reported interrupted, never run again', async ({
    onTestFinished,
  }) => {
    const workspace = await gitWorkspace(onTestFinished);
    const run = ['run', '--workspace', workspace, '--session', 'build'];
    const command = 'echo once >> runs.txt && sleep 20';
    const first = await startCli(run);
    onTestFinished(() => first.crash());
    await first.expect('you> ');
    first.type(`run ${command}`);
    await first.expect(`allow bash ${JSON.stringify({ command })}?`);
    first.type('y');
    // The command has started: its start was stored before it ran.
    await waitForContent(join(workspace, 'runs.txt'), 'once\n');
    first.crash();
    expect((await first.exited).signal).toBe('SIGKILL');

    const second = await runCli(run, ['/quit']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('session build · resumed from');
    expect(second.stdout).toContain('it stopped in ExecutingTools; resuming it:');
    expect(second.stdout).toContain(
      `  interrupted  bash ${JSON.stringify({ command })}: the process stopped while this call was running; it may or may not have taken effect`,
    );
    // The turn goes on: the model is told, and answers.
    expect(second.stdout).toContain('offline model> That failed: interrupted: the process stopped');
    expect(await readFile(join(workspace, 'runs.txt'), 'utf8')).toBe('once\n');

    const store = createSqliteSessionStore({
      path: join(workspace, '.agent-statechart', 'sessions.db'),
    });
    onTestFinished(() => store.close());
    const entries = await store.entries('build');
    const types = entries.map((entry) =>
      entry.kind === 'started' ? 'started' : (entry.data as { type: string }).type,
    );
    expect(types.filter((type) => type === 'Resume')).toHaveLength(1);
    expect(types.at(-1)).not.toBe('ShutdownRequested');
    const shown = await runCli(['sessions', 'show', 'build', '--workspace', workspace]);
    expect(shown.stdout).toMatch(/Resume {2}tool calls that had started: toolu_\w+/);
    expect(shown.stdout).toContain('transcript (4 messages)');
    const { core } = await openSession(store, 'build', {
      config: cliChartConfig({ mode: 'default' }),
      mustExist: true,
    });
    expect(core.state).toBe('WaitingForUserInput');
    expect(findTranscriptViolations(core.context.messages)).toEqual([]);
  });

  it('takes the mode --mode names on a resumed session, and keeps the stored one without it', async ({
    onTestFinished,
  }) => {
    const workspace = await gitWorkspace(onTestFinished);
    const run = ['run', '--workspace', workspace, '--session', 'modes'];
    const first = await runCli(run, ['list files']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('· mode default ·');
    // After the turn, what its model calls used (the offline model has no price).
    expect(first.stdout).toMatch(
      /^ {2}Σ 2 calls · [\d,]+ in \/ [\d,]+ out · cost unknown \(no price for the model\)$/m,
    );
    const named = await runCli([...run, '--mode', 'bypassPermissions'], ['list files']);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stdout).toContain('· mode bypassPermissions ·');
    const unnamed = await runCli(run, ['/quit']);
    expect(unnamed.stdout).toContain('· mode bypassPermissions ·');
    const shown = await runCli(['sessions', 'show', 'modes', '--workspace', workspace]);
    expect(shown.stdout).toMatch(/SetPermissionMode {2}bypassPermissions/);
    expect(shown.stdout).toMatch(/^ {2}usage {5}4 calls · /m);
    expect(shown.stdout).toContain('usage by turn (2 turns with model calls)');
    expect(shown.stdout).toMatch(/^ {4}1 {2}2 calls · /m);
    expect(shown.stdout).toMatch(/^ {4}2 {2}2 calls · /m);
  });

  it("says which of the model's questions a stored session waits for answers to, and logs the answers", async ({
    onTestFinished,
  }) => {
    const directory = await mkdtemp(join(tmpdir(), 'cli-sessions-questions-'));
    onTestFinished(() => rm(directory, { recursive: true, force: true }));
    const path = join(directory, 'sessions.db');
    const metadata = {
      createdBy: 'agent-statechart',
      workspace: directory,
      mode: 'default',
      askUser: true,
    };
    const open = async () => {
      const store = createSqliteSessionStore({ path });
      const session = await SessionCore.open(store, 'asking', {
        config: cliChartConfig(metadata),
        metadata,
      });
      return { store, session };
    };
    const first = await open();
    await first.session.handleEvent({
      type: 'UserInput',
      message: { role: 'user', content: 'paint the button' },
    });
    await first.session.handleEvent({
      type: 'LlmCompleted',
      response: {
        message: {
          role: 'assistant',
          content: [
            {
              type: 'tool_use',
              id: 'toolu_q1',
              name: 'ask_user',
              input: {
                questions: [
                  {
                    header: 'Colour',
                    question: 'Which colour?',
                    options: [{ label: 'red' }, { label: 'blue' }],
                  },
                  { header: 'Size', question: 'How big should it be?' },
                ],
              },
            },
          ],
        },
        stopReason: 'tool_use',
        model: 'claude-haiku-4-5-20251001',
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    });
    await first.store.close();

    const waiting = await runCli(['sessions', 'show', 'asking', '--store', path]);
    expect(waiting.code, waiting.stderr).toBe(0);
    expect(waiting.stdout).toContain('  state     ExecutingTools');
    expect(waiting.stdout).toContain(
      '    asked again  ask_user waits for answers to: [Colour] Which colour? · [Size] How big should it be?',
    );

    const second = await open();
    await second.session.handleEvent({
      type: 'UserAnswer',
      callId: 'toolu_q1',
      answers: ['blue', 'small'],
    });
    await second.store.close();
    const answered = await runCli(['sessions', 'show', 'asking', '--store', path]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).not.toContain('waits for answers');
    expect(answered.stdout).toMatch(
      /^ +\d+ {2}\+\d+\.\d{3} s {2}UserAnswer {2}toolu_q1 \["blue","small"\]$/m,
    );
  });

  it('refuses a bad session name and --store without --session, before starting anything', async () => {
    const badName = await runCli(['run', '--session', 'a\u0007b']);
    expect(badName.code).toBe(1);
    expect(badName.stderr).toContain('a session id must be 1 to 200 characters');
    const storeAlone = await runCli(['run', '--store', 'x.db']);
    expect(storeAlone.code).toBe(1);
    expect(storeAlone.stderr).toContain('--store names where --session keeps its session');
  });
});
