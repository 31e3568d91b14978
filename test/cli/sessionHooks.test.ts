/**
 * `run --session NAME --hooks MODULE`, each command a real process: the session records which
 * hooks it runs, `sessions show` and a replay of its log read it back with them (and only with
 * them do they match it), and a resume with other hooks — none, fewer or more — is refused before
 * anything starts, saying what to pass. A `.ts` module under plain node says how to load it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, type OnTestFinishedHandler } from 'vitest';
import { cliChartConfig } from '../../src/cli/sessionConfig.js';
import { SessionLogReplay } from '../../src/inspect/sessionLogReplay.js';
import type { Message } from '../../src/index.js';
import { openSession } from '../../src/persistence/openSession.js';
import { createSqliteSessionStore } from '../../src/persistence/sqliteSessionStore.js';
import { runCli } from './cliProcess.js';

const exec = promisify(execFile);

/** A git workspace, and a folder for hooks modules beside it; both deleted when the test ends. */
async function folders(onTestFinished: (cleanup: OnTestFinishedHandler) => void) {
  const workspace = await mkdtemp(join(tmpdir(), 'cli-session-hooks-'));
  const hooks = await mkdtemp(join(tmpdir(), 'cli-session-hooks-module-'));
  onTestFinished(() => rm(workspace, { recursive: true, force: true }));
  onTestFinished(() => rm(hooks, { recursive: true, force: true }));
  await exec('git', ['init', '-q'], { cwd: workspace });
  return { workspace, hooks };
}

/** Hooks that block prompts about secrets and have a turn that ends on a result go on once. */
const GUARD = {
  userPromptSubmit: `({ text }) => {
    log('userPromptSubmit ' + text);
    return /\\bsecret\\b/.test(text) ? { decision: 'block', reason: 'it mentions a secret' } : undefined;
  }`,
  stop: `({ text }) => (text.startsWith('Result:') ? { decision: 'continue', reason: 'say which file is largest' } : undefined)`,
  preToolUse: `() => undefined`,
};

/** Writes a module exporting `hooks` with the named ones of GUARD; answers its path. */
async function writeHooks(
  folder: string,
  name: string,
  hooks: readonly (keyof typeof GUARD)[],
): Promise<string> {
  const path = join(folder, name);
  await writeFile(
    path,
    `import { appendFileSync } from 'node:fs';
const log = (line) => appendFileSync(new URL('./hooks.log', import.meta.url), line + '\\n');
export const hooks = {
${hooks.map((hook) => `  ${hook}: ${GUARD[hook]},`).join('\n')}
};
`,
  );
  return path;
}

/** The text of every message, for comparing transcripts. */
function texts(messages: readonly Message[]): string {
  return JSON.stringify(messages.map((message) => message.content));
}

describe.concurrent('agent-statechart run --session --hooks', { timeout: 90_000 }, () => {
  it('records the hooks a session runs with; sessions show and a replay of its log read it back with them; a resume with other hooks is refused before anything starts', async ({
    onTestFinished,
  }) => {
    const { workspace, hooks } = await folders(onTestFinished);
    const guard = await writeHooks(hooks, 'guard.mjs', ['userPromptSubmit', 'stop']);
    const run = ['run', '--workspace', workspace, '--session', 'guarded'];
    const first = await runCli([...run, '--hooks', guard], ['read secret.txt', 'list files']);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`hooks from ${guard}: userPromptSubmit, stop\n`);
    expect(first.stdout).toContain(
      '  prompt not sent: the userPromptSubmit hook blocked it: it mentions a secret\n',
    );
    expect(first.stdout).toMatch(
      /offline model> Result:[\s\S]*offline model> I am the offline scripted model/,
    );
    expect(await readFile(join(hooks, 'hooks.log'), 'utf8')).toBe(
      'userPromptSubmit read secret.txt\nuserPromptSubmit list files\n',
    );

    const shown = await runCli(['sessions', 'show', 'guarded', '--workspace', workspace]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('"hooks":{"userPromptSubmit":true,"stop":true}');
    expect(shown.stdout).toContain('  state     WaitingForUserInput');
    expect(shown.stdout).toMatch(/^ +\d+ {2}user {7}\[stop hook\] say which file is largest$/m);
    expect(shown.stdout).not.toMatch(/^ +\d+ {2}user {7}read secret\.txt$/m);

    // The log replayed from its first entry, as `inspect --session` does: with the hooks the
    // session records it ends with the session's own transcript; without them it does not.
    const store = createSqliteSessionStore({
      path: join(workspace, '.agent-statechart', 'sessions.db'),
    });
    onTestFinished(() => store.close());
    const metadata = (await store.load('guarded'))!.header.metadata;
    const entries = await store.entries('guarded');
    const replayed = (config: ReturnType<typeof cliChartConfig>) => {
      const replay = new SessionLogReplay(config);
      for (const entry of entries) replay.next(entry);
      return replay.snapshot.context.messages;
    };
    const { core } = await openSession(store, 'guarded', {
      config: cliChartConfig(metadata),
      mustExist: true,
    });
    expect(texts(replayed(cliChartConfig(metadata)))).toBe(texts(core.context.messages));
    expect(texts(replayed(cliChartConfig({ ...metadata, hooks: undefined })))).not.toBe(
      texts(core.context.messages),
    );

    // Three resumes with other hooks, at once: each is refused before it touches the session.
    const [withoutHooks, fewer, more] = await Promise.all([
      runCli(run, ['list files']),
      runCli(
        [...run, '--hooks', await writeHooks(hooks, 'fewer.mjs', ['userPromptSubmit'])],
        ['list files'],
      ),
      runCli(
        [
          ...run,
          '--hooks',
          await writeHooks(hooks, 'more.mjs', ['userPromptSubmit', 'preToolUse', 'stop']),
        ],
        ['list files'],
      ),
    ]);
    expect(withoutHooks.code).toBe(1);
    expect(withoutHooks.stderr).toContain(
      "session 'guarded' runs with the userPromptSubmit and stop hooks, and resuming it without them would go on differently from how its log is read back; pass --hooks MODULE with those hooks (the module it was created with)",
    );
    // Nothing started: no banner, no prompt.
    expect(withoutHooks.stdout).toBe('');

    expect(fewer.code).toBe(1);
    expect(fewer.stderr).toMatch(
      /--hooks \S+fewer\.mjs has no stop hook, which session 'guarded' runs with \(a session keeps the hooks it was created with, since its log is read back with them\); pass --hooks a module with userPromptSubmit and stop/,
    );

    expect(more.code).toBe(1);
    expect(more.stderr).toMatch(
      /session 'guarded' was created without the preToolUse hook of --hooks \S+more\.mjs .*; start a new session \(another --session NAME\) to run it, or pass --hooks a module with only userPromptSubmit and stop/,
    );
    // None of the refused runs wrote to the session.
    expect(await store.entries('guarded')).toHaveLength(entries.length);

    const resumed = await runCli([...run, '--hooks', guard], ['read secret.txt again', '/quit']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('session guarded · resumed from');
    expect(resumed.stdout).toContain('prompt not sent: the userPromptSubmit hook blocked it');
  });

  it('refuses to resume a session created without hooks with --hooks, and says to leave it out', async ({
    onTestFinished,
  }) => {
    const { workspace, hooks } = await folders(onTestFinished);
    const run = ['run', '--workspace', workspace, '--session', 'plain'];
    const first = await runCli(run, ['list files']);
    expect(first.code, first.stderr).toBe(0);
    const shown = await runCli(['sessions', 'show', 'plain', '--workspace', workspace]);
    expect(shown.stdout).not.toContain('"hooks"');

    const guard = await writeHooks(hooks, 'guard.mjs', ['stop']);
    const refused = await runCli([...run, '--hooks', guard], ['list files']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `session 'plain' was created without the stop hook of --hooks ${guard} (a session keeps the hooks it was created with, since its log is read back with them); start a new session (another --session NAME) to run it, or leave out --hooks`,
    );
    expect(refused.stdout).toBe('');
  });

  it('says how to load a .ts hooks module when the command runs under plain node', async ({
    onTestFinished,
  }) => {
    const { workspace, hooks } = await folders(onTestFinished);
    const module = join(hooks, 'hooks.ts');
    await writeFile(module, 'export const hooks: Record<string, unknown> = {};\n');
    const refused = await runCli(['run', '--workspace', workspace, '--hooks', module], []);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`could not load '${module}'`);
    expect(refused.stderr).toContain(
      "(a .ts module loads only with tsx: NODE_OPTIONS='--import tsx' npx agent-statechart …, or compile it to .js first)",
    );
  });
});
