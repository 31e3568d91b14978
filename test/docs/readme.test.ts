/**
 * The README's blocks run as written: the quick starts print what their comments say, the HTTP
 * service answers a failed model call with the reason, and the inspectors listen on this machine
 * and stop.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { readmeBlock, statedOutput } from './readmeBlocks.js';
import { withoutCredentials } from '../support/noCredentials.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

const tsx = join(root, 'node_modules/.bin/tsx');

/** Writes a README block to a scratch folder, removed when the test ends. */
async function blockFile(code: string, onTestFinished: (done: () => Promise<void>) => void) {
  const directory = await mkdtemp(join(tmpdir(), 'readme-'));
  onTestFinished(() => rm(directory, { recursive: true, force: true }));
  const file = join(directory, 'block.mts');
  await writeFile(file, code);
  return { directory, file };
}

/** Runs a README block from this checkout: tsconfig's `paths` point the package at its source. */
async function runBlock(code: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'readme-'));
  try {
    const file = join(directory, 'quickStart.mts');
    await writeFile(file, code);
    const { stdout } = await run(tsx, ['--tsconfig', join(root, 'tsconfig.json'), file], {
      cwd: root,
    });
    return stdout;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('README', () => {
  it('runs the pure-mode quick start as written, printing what its comments say', async () => {
    const code = await readmeBlock('Quick start: pure mode');
    const expected = statedOutput(code);
    expect(expected).toHaveLength(5);
    expect((await runBlock(code)).trim().split('\n')).toEqual(expected);
  });

  it('runs the actor-mode quick start as written, printing what its comments say', async () => {
    const code = await readmeBlock('Quick start: actor mode');
    const expected = statedOutput(code);
    expect(expected).toEqual(['list_files success', 'WaitingForUserInput 4']);
    expect((await runBlock(code)).trim().split('\n')).toEqual(expected);
  });

  it('answers a failed model call with its reason in the HTTP service, in a workspace of its own', async ({
    onTestFinished,
  }) => {
    withoutCredentials();
    const { directory, file } = await blockFile(
      await readmeBlock('Embed it in a Node service'),
      onTestFinished,
    );
    const port = await freePort();
    // Its temporary folders (the agent's workspace among them) go where the test removes them.
    const service = spawn(tsx, ['--tsconfig', join(root, 'tsconfig.json'), file], {
      cwd: root,
      env: { ...process.env, PORT: String(port), TMPDIR: directory },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    onTestFinished(async () => {
      if (service.exitCode === null && service.signalCode === null) {
        service.kill();
        await once(service, 'exit');
      }
    });
    const post = () =>
      fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'Hello' }).then(
        (response) => response.text(),
        () => undefined,
      );
    await expect
      .poll(post, { timeout: 30_000 })
      .toMatch(/^\n\[error\] .*Could not resolve authentication method/);
    expect((await readdir(directory)).filter((name) => name.startsWith('agent-'))).toHaveLength(1);
  });

  it('runs the inspectors on this machine only, and stops them, ending by itself', async () => {
    const output = await runBlock(await readmeBlock('Watch it live'));
    expect(output.trim().split('\n')).toEqual([
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
      expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/$/),
    ]);
  });
});
