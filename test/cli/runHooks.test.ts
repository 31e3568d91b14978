/**
 * `agent-statechart run --hooks MODULE`: the user's own hooks, from a real module on disk, in the
 * interactive agent — a prompt the userPromptSubmit hook blocks is shown as not sent and never
 * reaches the model, a call the preToolUse hook denies never runs, the stop hook has the turn go
 * on, a hook slower than --hook-timeout fails — and a module that cannot be used is refused,
 * saying why, before anything starts. Each hook logs what it was asked to a file beside its
 * module, so the tests see the hooks themselves ran.
 */
import { execFile } from 'node:child_process';
import { access, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offlineModel } from '../../src/cli/offlineModel.js';
import { parseRunOptions } from '../../src/cli/runCommand.js';
import { type MessagesApiServer, startMessagesApiServer } from '../../src/testing/index.js';
import { runPiped } from './pipedRun.js';

const exec = promisify(execFile);
let workspace: string;
let hooksDir: string;
let server: MessagesApiServer | undefined;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'run-hooks-'));
  hooksDir = await mkdtemp(join(tmpdir(), 'run-hooks-module-'));
  await exec('git', ['init', '-q'], { cwd: workspace });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(workspace, { recursive: true, force: true });
  await rm(hooksDir, { recursive: true, force: true });
});

/** The opening of every hooks module here: `log(line)` appends to hooks.log beside it. */
const LOGGING = `import { appendFileSync } from 'node:fs';
const log = (line) => appendFileSync(new URL('./hooks.log', import.meta.url), line + '\\n');
`;

/** Writes a hooks module into its own folder; answers its absolute path. */
async function writeHooks(source: string, name = 'hooks.mjs'): Promise<string> {
  const path = join(hooksDir, name);
  await writeFile(path, LOGGING + source);
  return path;
}

/** What the hooks logged, a line each time one was asked. */
async function hookLog(): Promise<string[]> {
  const text = await readFile(join(hooksDir, 'hooks.log'), 'utf8').catch(() => '');
  return text.split('\n').filter((line) => line !== '');
}

/**
 * `run` against the offline model's script behind a local Messages API server, so the requests
 * the model was sent can be read.
 */
async function run(lines: string[], argv: string[]) {
  server = await startMessagesApiServer({ script: offlineModel });
  const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL };
  return runPiped(workspace, lines, argv, env);
}

/** Every request the model was sent, as JSON text. */
function requestsSent(): string {
  return JSON.stringify(server?.requests.map((request) => request.body) ?? []);
}

describe('agent-statechart run --hooks', () => {
  it('shows a prompt the userPromptSubmit hook blocks as not sent; the model never sees it, and the next line is a message again', async () => {
    const module = await writeHooks(`export const hooks = {
  userPromptSubmit: ({ text }) => {
    log('userPromptSubmit ' + text);
    return /\\bsecret\\b/.test(text) ? { decision: 'block', reason: 'it mentions a secret' } : undefined;
  },
};
`);
    // Relative to the current directory, as a path typed in a shell is.
    const typed = relative(process.cwd(), module);
    const { code, printed } = await run(['read secret.txt', 'list files'], ['--hooks', typed]);
    expect(code).toBe(0);
    expect(printed).toContain(`hooks from ${typed}: userPromptSubmit\n`);
    expect(printed).toContain(
      '  prompt not sent: the userPromptSubmit hook blocked it: it mentions a secret\n',
    );
    expect(printed).not.toContain('⚙ read_file');
    expect(printed).toContain('⚙ list_files');
    expect(await hookLog()).toEqual([
      'userPromptSubmit read secret.txt',
      'userPromptSubmit list files',
    ]);
    // Two model calls, both for the second line: the list, and the answer to its result.
    expect(server?.requests).toHaveLength(2);
    expect(requestsSent()).not.toContain('secret');
  });

  it('refuses a call the preToolUse hook of a default export denies, before anyone is asked to approve it; the model reads why', async () => {
    await writeFile(join(workspace, 'notes.txt'), 'keep me\n');
    const module = await writeHooks(`export default {
  preToolUse: ({ call }) => {
    log('preToolUse ' + call.name + ' ' + JSON.stringify(call.input));
    return call.name === 'bash' && /^rm\\b/.test(call.input.command)
      ? { decision: 'deny', reason: 'nothing is deleted here; move it to trash/ instead' }
      : undefined;
  },
};
`);
    const { code, printed } = await run(['run rm notes.txt'], ['--hooks', module]);
    expect(code).toBe(0);
    expect(printed).toContain(`hooks from ${module}: preToolUse\n`);
    expect(printed).toContain(
      '✗ bash: permission denied by the preToolUse hook: nothing is deleted here; move it to trash/ instead',
    );
    expect(printed).not.toContain('allow bash');
    expect(await hookLog()).toEqual(['preToolUse bash {"command":"rm notes.txt"}']);
    expect(await readFile(join(workspace, 'notes.txt'), 'utf8')).toBe('keep me\n');
    expect(JSON.stringify(server?.requests[1]?.body.messages.at(-1))).toContain(
      'move it to trash/ instead',
    );
  });

  it('goes on with the turn once when the stop hook says so: the model reads its reason next', async () => {
    const module = await writeHooks(`export const hooks = {
  stop: ({ text }) => {
    log('stop ' + text.split('\\n')[0]);
    return text.startsWith('Result:') ? { decision: 'continue', reason: 'say which file is largest' } : undefined;
  },
};
`);
    const { code, printed } = await run(['list files'], ['--hooks', module]);
    expect(code).toBe(0);
    expect(await hookLog()).toEqual(['stop Result:']);
    // The list, its result, and one more call that reads the hook's reason.
    expect(server?.requests).toHaveLength(3);
    expect(JSON.stringify(server?.requests[2]?.body.messages.at(-1))).toContain(
      '[stop hook] say which file is largest',
    );
    expect(printed).toMatch(/claude> Result:[\s\S]*claude> I am the offline scripted model/);
  });

  it('fails a hook that takes longer than --hook-timeout: the error is shown, and the prompt goes through', async () => {
    const module = await writeHooks(`export const hooks = {
  userPromptSubmit: () => {
    log('userPromptSubmit asked');
    return new Promise(() => undefined);
  },
};
`);
    const started = Date.now();
    const { code, printed } = await run(
      ['list files'],
      ['--hooks', module, '--hook-timeout', '300'],
    );
    expect(code).toBe(0);
    expect(printed).toMatch(/ {2}! the userPromptSubmit hook failed: .*took over 300 ms/);
    expect(printed).toContain('⚙ list_files');
    expect(await hookLog()).toEqual(['userPromptSubmit asked']);
    // Not the default minute.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('refuses a module it cannot load, or whose exports are not hooks, naming it and the fix, before anything starts', async () => {
    const refused = (argv: string[]) =>
      runPiped(workspace, ['list files'], [...argv, '--session', 'guarded']).then(
        () => expect.unreachable('run should have refused the module'),
        (error: unknown) => error as { code: string; message: string },
      );

    const missing = await refused(['--hooks', './no-such-hooks.mjs']);
    expect(missing.code).toBe('MODULE_NOT_LOADED');
    expect(missing.message).toContain("could not load './no-such-hooks.mjs'");

    const typescript = await refused(['--hooks', './no-such-hooks.ts']);
    expect(typescript.message).toContain(
      "(a .ts module loads only with tsx: NODE_OPTIONS='--import tsx' npx agent-statechart …, or compile it to .js first)",
    );

    const noHooks = await refused([
      '--hooks',
      await writeHooks('export const helper = 1;\n', 'helpers.mjs'),
    ]);
    expect(noHooks.code).toBe('EXPORT_NOT_FOUND');
    expect(noHooks.message).toMatch(
      /^'.*helpers\.mjs' exports no hooks \(it exports helper\); export them as 'hooks' or as the default export/,
    );

    const misnamed = await refused([
      '--hooks',
      await writeHooks('export const hooks = { onStop() {} };\n', 'misnamed.mjs'),
    ]);
    expect(misnamed.code).toBe('INVALID_OPTION');
    expect(misnamed.message).toMatch(
      /^the 'hooks' export of '.*misnamed\.mjs' cannot be used as hooks: hooks\.onStop is not a hook; the hooks are userPromptSubmit, preCompact, preToolUse, postToolUse, stop$/,
    );

    const notFunctions = await refused([
      '--hooks',
      await writeHooks("export default { stop: 'yes' };\n", 'strings.mjs'),
    ]);
    expect(notFunctions.code).toBe('INVALID_OPTION');
    expect(notFunctions.message).toMatch(
      /^the 'default' export of '.*strings\.mjs' cannot be used as hooks: hooks\.stop must be a function$/,
    );

    // Refused before the session store was opened.
    await expect(access(join(workspace, '.agent-statechart'))).rejects.toThrow();
  });

  it('takes --hook-timeout only as a whole number of milliseconds, and only with --hooks', () => {
    expect(parseRunOptions(['--hooks', 'h.mjs', '--hook-timeout', '1500'])).toMatchObject({
      hooks: 'h.mjs',
      hookTimeoutMs: 1500,
    });
    expect(() => parseRunOptions(['--hooks', 'h.mjs', '--hook-timeout', '0'])).toThrow(
      "--hook-timeout must be a whole number of milliseconds, 1 or more; got '0'",
    );
    expect(() => parseRunOptions(['--hooks', 'h.mjs', '--hook-timeout', '2s'])).toThrow(
      "--hook-timeout must be a whole number of milliseconds, 1 or more; got '2s'",
    );
    expect(() => parseRunOptions(['--hook-timeout', '500'])).toThrow(
      '--hook-timeout says how long each --hooks hook may take; give --hooks MODULE too',
    );
  });
});
