/**
 * `--baseline` builds the package of another commit for real: a git worktree of that commit,
 * compiled by this checkout's tsc with this checkout's bench settings, importable as plain
 * JavaScript; the same cache moves to the next commit asked for; an unknown ref and a build
 * that lacks an export a subject calls fail with messages that say so. The repository here is a
 * small one made for the test (two commits of a one-file package), so nothing touches this
 * checkout's own worktrees.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  activeBaseline,
  type BaselineBuild,
  loadBaselinePackage,
  useBaseline,
} from '../../bench/baseline/baselinePackage.js';
import { buildBaseline, resolveCommit } from '../../bench/baseline/buildBaseline.js';

const checkout = join(import.meta.dirname, '..', '..');
const VARIABLE = 'AGENT_STATECHART_BENCH_BASELINE';

let repo: string;
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: repo,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();

function commitPackage(version: string, message: string): string {
  writeFileSync(
    join(repo, 'src', 'index.ts'),
    `export const version: string = '${version}';\nexport function createAgent(): string {\n  return version;\n}\n`,
  );
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', message);
  return git('rev-parse', 'HEAD');
}

beforeAll(() => {
  repo = mkdtempSync(join(tmpdir(), 'bench-baseline-'));
  mkdirSync(join(repo, 'src'));
  mkdirSync(join(repo, 'bench'));
  // The checkout's compiler settings and tsc, as the bench has them.
  cpSync(join(checkout, 'tsconfig.json'), join(repo, 'tsconfig.json'));
  cpSync(join(checkout, 'bench', 'tsconfig.json'), join(repo, 'bench', 'tsconfig.json'));
  writeFileSync(join(repo, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(checkout, 'node_modules'), join(repo, 'node_modules'));
  writeFileSync(join(repo, '.gitignore'), 'node_modules\ncache\n');
  git('init', '-q');
});

afterAll(() => {
  rmSync(repo, { recursive: true, force: true });
});

const saved = process.env[VARIABLE];
afterEach(() => {
  if (saved === undefined) delete process.env[VARIABLE];
  else process.env[VARIABLE] = saved;
});

describe('building a baseline', () => {
  it('compiles the package of the commit asked for, and moves the same cache to the next one', async () => {
    const first = commitPackage('one', 'The first version');
    const second = commitPackage('two', 'The second version');
    const place = { checkout: repo, cacheDir: join(repo, 'cache') };

    const build = buildBaseline('HEAD~1', place);
    expect(build).toMatchObject({ ref: 'HEAD~1', commit: first, title: 'The first version' });
    const old = (await import(pathToFileURL(build.entry).href)) as { version: string };
    expect(old.version).toBe('one');

    const next = buildBaseline(second.slice(0, 10), place);
    expect(next.commit).toBe(second);
    expect(next.entry).toBe(build.entry);
    // A fresh URL: the module loader keeps the first import under the old one.
    const moved = (await import(`${pathToFileURL(next.entry).href}?second`)) as { version: string };
    expect(moved.version).toBe('two');
    expect(git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
  });

  it('refuses a ref that names no commit', () => {
    expect(() => resolveCommit(checkout, 'no-such-ref-anywhere')).toThrow(
      /--baseline=no-such-ref-anywhere: no such commit/,
    );
    expect(resolveCommit(checkout, 'HEAD')).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe('loading a baseline build', () => {
  const fake = (entry: string): BaselineBuild => ({
    ref: 'HEAD~9',
    commit: 'a'.repeat(40),
    title: 'An old version',
    committedAt: '2025-01-01T00:00:00Z',
    entry,
  });

  it('hands the build to the processes it starts through the environment', () => {
    useBaseline(fake('/somewhere/src/index.js'));
    expect(activeBaseline()?.entry).toBe('/somewhere/src/index.js');
  });

  it('names the exports a subject calls that the baseline lacks', async () => {
    const entry = join(repo, 'lacking.mjs');
    writeFileSync(entry, 'export function createAgent() {}\n');
    useBaseline(fake(entry));
    await expect(
      loadBaselinePackage(['createAgent', 'defineTool'], 'the agentBase subject'),
    ).rejects.toThrow(
      /aaaaaaaaaaaa \(HEAD~9\) "An old version" does not export defineTool, which the agentBase subject calls/,
    );
    const loaded = await loadBaselinePackage(['createAgent'], 'the agentBase subject');
    expect(typeof loaded.createAgent).toBe('function');
  });

  it('says when there is no baseline to load', async () => {
    delete process.env[VARIABLE];
    await expect(loadBaselinePackage(['createAgent'], 'the agentBase subject')).rejects.toThrow(
      /--baseline=<git ref>/,
    );
  });
});
