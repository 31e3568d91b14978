/**
 * The package as a user gets it: `npm pack` (which builds first), the tarball installed into a
 * scratch project with `npm install`, and the README's actor-mode quick start run there as
 * written, the http-service example type-checked there, a consumer type-checked without the
 * optional peers and with `skipLibCheck: false`, and the command started through `npx`.
 *
 * Packing compiles the package and installing takes a while, so this runs with the end-to-end
 * tests (`npm run test:e2e`); the dependencies come from npm's cache (`--prefer-offline`).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readmeBlock, statedOutput } from '../docs/readmeBlocks.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

interface PackedFile {
  path: string;
}

/** The tsconfig of a user's strict ESM project, with Node's types and these options. */
function consumerTsconfig(options: Record<string, unknown>, include: string[]): string {
  return JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      types: ['node'],
      ...options,
    },
    include,
  });
}

describe('the packed package', () => {
  let scratch = '';
  let packed: PackedFile[] = [];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'packed-package-'));
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], {
      cwd: root,
    });
    const [report] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
      filename: string;
      files: PackedFile[];
    }[];
    if (report === undefined) throw new Error(`npm pack reported nothing: ${stdout}`);
    packed = report.files;
    await writeFile(
      join(scratch, 'package.json'),
      JSON.stringify({ name: 'scratch-project', private: true, type: 'module' }),
    );
    // The package has no install scripts of its own. Its dependencies' (better-sqlite3 builds a
    // native module, used only by the SQLite session store) take minutes offline and are not what
    // this test is about.
    await run(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        `./${report.filename}`,
      ],
      { cwd: scratch },
    );
  }, 240_000);

  afterAll(async () => {
    if (scratch !== '') await rm(scratch, { recursive: true, force: true });
  });

  it('ships the compiled package and its licence, and no source maps', () => {
    const paths = packed.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'LICENSE',
        'README.md',
        'package.json',
        'dist/index.js',
        'dist/index.d.ts',
        'dist/cli/main.js',
        'dist/testing/index.js',
        'dist/inspect/index.js',
        'dist/diagram/index.js',
      ]),
    );
    expect(paths.filter((path) => !/^dist\/.*\.(js|d\.ts)$/.test(path))).toEqual([
      'LICENSE',
      'README.md',
      'package.json',
    ]);
  });

  it("runs the README's actor-mode quick start as written, printing what its comments say", async () => {
    const code = await readmeBlock('Quick start: actor mode');
    await writeFile(join(scratch, 'quickStart.mts'), code);
    const { stdout } = await run(join(root, 'node_modules/.bin/tsx'), ['quickStart.mts'], {
      cwd: scratch,
    });
    expect(stdout.trim().split('\n')).toEqual(statedOutput(code));
  }, 30_000);

  it('type-checks the http-service example, copied out, against the installed types', async () => {
    const example = join(scratch, 'http-service');
    await mkdir(example);
    await cp(join(root, 'examples/http-service'), example, { recursive: true });
    await writeFile(
      join(example, 'tsconfig.json'),
      consumerTsconfig({ skipLibCheck: true, typeRoots: [join(root, 'node_modules/@types')] }, [
        '*.ts',
      ]),
    );
    const tsc = join(root, 'node_modules/.bin/tsc');
    await expect(run(tsc, ['-p', example], { cwd: example })).resolves.toBeDefined();
  }, 60_000);

  it('type-checks, with skipLibCheck: false, for a user without the optional peers', async () => {
    for (const peer of [
      'pg',
      '@types/pg',
      '@dbos-inc/dbos-sdk',
      '@statelyai/inspect',
      '@modelcontextprotocol/sdk',
    ]) {
      expect(existsSync(join(scratch, 'node_modules', peer)), peer).toBe(false);
    }
    const consumer = join(scratch, 'strict-consumer');
    // Node's types only: the repository's other @types (pg's among them) must not be found.
    await mkdir(join(consumer, 'types'), { recursive: true });
    await symlink(join(root, 'node_modules/@types/node'), join(consumer, 'types/node'));
    await writeFile(
      join(consumer, 'consumer.ts'),
      [
        "import { connectMcpServers, createAgent, createPostgresSessionStore, serveAgentOverMcp } from 'agent-statechart';",
        "import { toMermaid } from 'agent-statechart/diagram';",
        "import { createStatelyInspector, startInspectorServer } from 'agent-statechart/inspect';",
        "import { startMessagesApiServer } from 'agent-statechart/testing';",
        'export const used = [createAgent, createPostgresSessionStore, toMermaid, connectMcpServers, serveAgentOverMcp];',
        'export const more = [createStatelyInspector, startInspectorServer, startMessagesApiServer];',
        '',
      ].join('\n'),
    );
    await writeFile(
      join(consumer, 'tsconfig.json'),
      consumerTsconfig({ skipLibCheck: false, typeRoots: ['./types'] }, ['consumer.ts']),
    );
    const tsc = join(root, 'node_modules/.bin/tsc');
    const checked = await run(tsc, ['-p', consumer], { cwd: consumer }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('');
    // Every declaration file of the package and its dependencies is checked: a busy machine's minutes.
  }, 240_000);

  it('starts the command through npx', async () => {
    const { stdout } = await run('npx', ['--no-install', 'agent-statechart', '--help'], {
      cwd: scratch,
    });
    expect(stdout).toMatch(/^usage: agent-statechart <command>/);
    const manifest = JSON.parse(
      await readFile(join(scratch, 'node_modules/agent-statechart/package.json'), 'utf8'),
    ) as {
      type?: string;
      license?: string;
      repository?: { url?: string };
      homepage?: string;
      bugs?: { url?: string };
    };
    expect([manifest.type, manifest.license]).toEqual(['module', 'MIT']);
    const project = 'github.com/agent-statechart/agent-statechart';
    for (const url of [manifest.repository?.url, manifest.homepage, manifest.bugs?.url]) {
      expect(url).toContain(project);
    }
  }, 30_000);
});
