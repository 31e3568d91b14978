import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BashToolOptions,
  createBashTool,
} from '../../../src/actors/tools/builtins/createBashTool.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { sandboxUnavailable } from '../../support/bubblewrap.js';
import { useLoopbackServers } from '../../support/loopbackServers.js';
import { successOutput } from './outcomes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/**
 * Outside every temporary directory, which the sandbox replaces: readable there, by design. A
 * checkout that itself lives in a temporary directory uses the home directory instead.
 */
const VISIBLE = [tmpdir(), '/tmp', '/var/tmp'].some((temp) => isInside(REPO, temp))
  ? join(homedir(), 'agent-statechart-test-results', 'sandbox')
  : join(REPO, 'test-results', 'sandbox');

afterAll(async () => {
  // Only this file writes there; leave no trace in the home directory.
  if (!isInside(VISIBLE, REPO)) await rm(dirname(VISIBLE), { recursive: true, force: true });
});

function isInside(path: string, directory: string): boolean {
  const rel = relative(resolve(directory), resolve(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function bashTool(options: BashToolOptions = {}) {
  const registry = createToolRegistry([createBashTool(options)]);
  return async (workspace: string, command: string): Promise<string> =>
    String(
      successOutput(
        await runToolCall(registry, { id: 'b1', name: 'bash', input: { command } }, { workspace }),
      ),
    );
}

/** Every file below `dir` with its content and inode, to see any change made from inside. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    files[path] = entry.isFile()
      ? `${(await stat(path)).ino}:${await readFile(path, 'utf8')}`
      : entry.isSymbolicLink()
        ? 'link'
        : 'dir';
  }
  return files;
}

/**
 * tmp/…/                     (a host temporary directory: replaced inside the sandbox)
 *   ws/                      the workspace, a git repository
 *     inside.txt
 *     outlink -> ../canary   planted from outside
 *   canary/secret.txt
 * test-results/sandbox/…/    (not temporary: readable inside, never writable)
 *   canary/secret.txt
 */
async function layout() {
  const secret = `CANARY-${randomBytes(6).toString('hex')}`;
  const base = await dirs.make('sandbox-');
  const ws = join(base, 'ws');
  const canary = join(base, 'canary');
  await mkdir(ws);
  await mkdir(canary);
  await writeFile(join(canary, 'secret.txt'), secret);
  await writeFile(join(ws, 'inside.txt'), 'inside');
  await symlink('../canary', join(ws, 'outlink'));
  execFileSync('git', ['init', '-q'], { cwd: ws });
  await mkdir(VISIBLE, { recursive: true });
  const visible = await mkdtemp(join(VISIBLE, 'visible-'));
  visibleDirs.push(visible);
  await mkdir(join(visible, 'canary'));
  await writeFile(join(visible, 'canary', 'secret.txt'), secret);
  return { secret, base, ws, canary, visibleCanary: join(visible, 'canary') };
}
let visibleDirs: string[] = [];
afterEach(async () => {
  await Promise.all(visibleDirs.map((dir) => rm(dir, { recursive: true, force: true })));
  visibleDirs = [];
});

describe.skipIf(sandboxUnavailable !== null)('bash in the sandbox', () => {
  const bash = bashTool();

  it('says its commands run in a sandbox', () => {
    expect(createBashTool().sandbox).toEqual({ active: true });
    expect(createBashTool({ sandbox: 'required' }).sandbox).toEqual({ active: true });
  });

  it('refuses every escape attempt: 0 reads of the canary, 0 changes outside the workspace', async () => {
    const { secret, base, ws, canary, visibleCanary } = await layout();
    // Every attempt is harmless should it run unconfined (this test must fail, not damage the host).
    const host = spawn('sleep', ['30'], { stdio: 'ignore' });
    const hidden = bashTool({ sandbox: { denyRead: [visibleCanary] } });
    try {
      const attempts: Record<string, string> = {
        'read beside the workspace': 'cat ../canary/secret.txt',
        'read by absolute path': `cat ${canary}/secret.txt`,
        'read through a planted symlink': 'cat outlink/secret.txt',
        'read through /proc/self/cwd': 'cat /proc/self/cwd/../canary/secret.txt',
        'read through /proc/1/root': `cat /proc/1/root${canary}/secret.txt`,
        'write beside the workspace': 'echo x > ../canary/beside',
        'overwrite the canary': `echo x > ${canary}/secret.txt`,
        'write outside any temp directory': `echo x > ${visibleCanary}/absolute; echo x >> ${visibleCanary}/secret.txt`,
        'cd .. and write there': 'cd .. && ls && touch escaped && echo x > canary/cd',
        'write through /proc/self/cwd/..': 'echo x > /proc/self/cwd/../canary/proc',
        'write through a planted symlink': 'echo x > outlink/planted',
        'ln -s outside, then write': `ln -s ${visibleCanary} out && echo x > out/linked`,
        'hard link to a file outside': `ln ${visibleCanary}/secret.txt hard && echo hard >> hard`,
        'a subshell': `(cd ${visibleCanary} && echo x > subshell)`,
        'a nested bash': `bash -c 'echo x > ${visibleCanary}/nested'`,
        'python3 -c writing outside': `python3 -c "open('${visibleCanary}/py', 'w').write('x')"`,
        'node writing outside': `node -e "require('fs').writeFileSync('${visibleCanary}/node', 'x')"`,
        'keep a capability (to mount, unmount, remount)': `[ "$(grep ^CapEff /proc/self/status | cut -f2)" = 0000000000000000 ] || echo CAPABLE-${canary}`,
        'a kernel setting through /proc/sys': `test -w /proc/sys/kernel/core_pattern && echo WRITABLE-${canary}`,
        'signal a process of the host': `kill -9 ${host.pid}`,
      };
      // What lies outside the workspace, compared after each attempt to name the one that changed it.
      const outside = async () =>
        JSON.stringify([await snapshot(visibleCanary), withoutWorkspace(await snapshot(base), ws)]);
      let before = await outside();
      const escapes: string[] = [];
      const check = async (name: string, output: string) => {
        const after = await outside();
        if (output.includes(secret) || output.includes(`-${canary}`) || after !== before) {
          escapes.push(`${name}: ${output}`);
        }
        before = after;
      };
      for (const [name, command] of Object.entries(attempts)) {
        await check(name, await bash(ws, command));
      }
      // A path hidden by denyRead: reading it, or unmounting what hides it.
      await check('read a denied path', await hidden(ws, `cat ${visibleCanary}/secret.txt`));
      await check(
        'unmount what hides a denied path',
        await hidden(
          ws,
          `umount ${visibleCanary}; umount -l ${visibleCanary}; cat ${visibleCanary}/secret.txt`,
        ),
      );
      expect(escapes).toEqual([]);
      expect(host.exitCode).toBeNull();
      expect(host.signalCode).toBeNull();
      expect(await readFile(join(canary, 'secret.txt'), 'utf8')).toBe(secret);
    } finally {
      host.kill();
    }
  });

  it('reports the refusals the way the OS does, so the model sees why', async () => {
    const { ws, visibleCanary } = await layout();
    expect(await bash(ws, `echo x > ${visibleCanary}/x`)).toMatch(/Read-only file system/);
    expect(await bash(ws, 'cat ../canary/secret.txt')).toMatch(/No such file or directory/);
    expect(await bash(ws, 'echo 0 > /proc/sys/vm/drop_caches')).toMatch(/Read-only file system/);
  });

  it('reads the rest of the machine: /etc is not a secret, its password hashes are', async () => {
    const { ws } = await layout();
    expect(await bash(ws, 'grep -c "^root:" /etc/passwd')).toBe('1\n[exit code 0]');
    expect(await bash(ws, 'cat /etc/shadow')).toBe(
      'cat: /etc/shadow: Permission denied\n[exit code 1]',
    );
  });

  it('still does ordinary work: ls, git status, npm --version, writing in the workspace', async () => {
    const { ws } = await layout();
    expect(await bash(ws, 'ls')).toBe('inside.txt\noutlink\n[exit code 0]');
    expect(await bash(ws, 'git status --short --untracked-files=all')).toBe(
      '?? inside.txt\n?? outlink\n[exit code 0]',
    );
    expect(await bash(ws, 'npm --version')).toMatch(/^\d+\.\d+\.\d+\n\[exit code 0\]$/);
    expect(await bash(ws, 'mkdir -p out && echo made > out/f.txt && cat out/f.txt')).toBe(
      'made\n[exit code 0]',
    );
    expect(await readFile(join(ws, 'out', 'f.txt'), 'utf8')).toBe('made\n');
  });

  it("keeps the repository's hooks and config, which the host's git runs, read-only", async () => {
    const { ws } = await layout();
    const before = {
      config: await readFile(join(ws, '.git', 'config'), 'utf8'),
      hooks: await readdir(join(ws, '.git', 'hooks')),
    };
    const attempts = [
      "printf '#!/bin/sh\\ntouch /tmp/hooked\\n' > .git/hooks/post-commit",
      'git config core.fsmonitor "touch /tmp/monitored"',
      'mv .git .git-old && git init -q && echo x > .git/hooks/post-commit',
      'rm -rf .git/hooks .git/config',
    ];
    for (const command of attempts) await bash(ws, command);
    expect(await readFile(join(ws, '.git', 'config'), 'utf8')).toBe(before.config);
    expect(await readdir(join(ws, '.git', 'hooks'))).toEqual(before.hooks);
    expect(await readdir(ws)).not.toContain('.git-old');
    expect(
      await bash(
        ws,
        'git add inside.txt && git -c user.name=A -c user.email=a@example.com commit -qm first && git log --format=%s',
      ),
    ).toBe('first\n[exit code 0]');
  });

  it('gives each command a private, writable /tmp that leaves nothing on the host', async () => {
    const { ws } = await layout();
    const name = `private-${randomBytes(4).toString('hex')}`;
    expect(await bash(ws, `echo hi > /tmp/${name} && cat /tmp/${name}; echo $TMPDIR`)).toBe(
      'hi\n/tmp\n[exit code 0]',
    );
    expect(await bash(ws, `ls /tmp/${name}`)).toMatch(/No such file or directory/);
    await expect(stat(join(tmpdir(), name))).rejects.toThrow(/ENOENT/);
  });

  describe('home dotfiles', () => {
    const realHome = process.env.HOME;
    let home: string;
    beforeEach(async () => {
      await mkdir(VISIBLE, { recursive: true });
      home = await mkdtemp(join(VISIBLE, 'home-'));
      await mkdir(join(home, '.ssh'));
      await mkdir(join(home, '.aws'));
      await mkdir(join(home, '.config', 'git'), { recursive: true });
      await writeFile(join(home, '.ssh', 'id_ed25519'), 'PRIVATE-KEY');
      await writeFile(join(home, '.aws', 'credentials'), 'AWS-SECRET');
      await writeFile(join(home, '.config', 'git', 'config'), '[core]\n');
      await writeFile(join(home, '.netrc'), 'machine x password NETRC-SECRET');
      await writeFile(join(home, 'notes.txt'), 'plain notes');
      process.env.HOME = home;
    });
    afterEach(async () => {
      process.env.HOME = realHome;
      await rm(home, { recursive: true, force: true });
    });

    it('hides credentials of the home directory and keeps the rest of it readable', async () => {
      const { ws } = await layout();
      const output = await bash(
        ws,
        'cat ~/.ssh/id_ed25519 ~/.aws/credentials ~/.netrc ~/.config/git/config; cat ~/notes.txt',
      );
      expect(output).not.toMatch(/PRIVATE-KEY|AWS-SECRET|NETRC-SECRET/);
      expect(output).toMatch(/plain notes/);
    });

    it('lets allowRead show a path inside a hidden one, and denyRead hide more', async () => {
      const { ws, visibleCanary } = await layout();
      const configured = bashTool({
        sandbox: { allowRead: ['~/.config/git'], denyRead: [visibleCanary, '~/notes.txt'] },
      });
      const output = await configured(
        ws,
        `cat ~/.config/git/config; cat ~/.ssh/id_ed25519; cat ~/notes.txt; cat ${visibleCanary}/secret.txt`,
      );
      expect(output).toMatch(/^\[core\]\n/);
      expect(output).not.toMatch(/PRIVATE-KEY|plain notes|CANARY/);
    });
  });

  describe('network', () => {
    const ports = useLoopbackServers();

    /** A node script printing what a connection got: CONNECTED, a status code, or an error code. */
    const direct = (port: number) =>
      `node -e "require('net').connect(${port}, '127.0.0.1').on('connect', () => { console.log('CONNECTED'); process.exit(0); }).on('error', (e) => console.log(e.code))"`;
    const throughProxy = (target: string) =>
      `node -e "require('http').request({ host: '127.0.0.1', port: 3128, method: 'CONNECT', path: '${target}' }).on('connect', (res, socket) => { console.log(res.statusCode); socket.destroy(); }).on('error', (e) => console.log(e.code)).end()"`;
    const fetchThroughProxy = (port: number) =>
      `node -e "require('http').get({ host: '127.0.0.1', port: 3128, path: 'http://127.0.0.1:${port}/' }, (res) => { res.setEncoding('utf8'); res.on('data', (d) => console.log(res.statusCode, d.trim())); }).on('error', (e) => console.log(e.code))"`;

    it('has none without an allow-list: the host loopback is out of reach', async () => {
      const { ws } = await layout();
      expect(await bash(ws, direct(ports.allowed))).toBe('ECONNREFUSED\n[exit code 0]');
      expect(await bash(ws, throughProxy(`127.0.0.1:${ports.allowed}`))).toBe(
        'ECONNREFUSED\n[exit code 0]',
      );
    });

    it('reaches only the allowed host:port, through the proxy', async () => {
      const { ws } = await layout();
      const bashWithNetwork = bashTool({
        sandbox: { allowNetwork: [`127.0.0.1:${ports.allowed}`] },
      });
      expect(await bashWithNetwork(ws, fetchThroughProxy(ports.allowed))).toBe(
        '200 allowed\n[exit code 0]',
      );
      expect(await bashWithNetwork(ws, throughProxy(`127.0.0.1:${ports.allowed}`))).toBe(
        '200\n[exit code 0]',
      );
      expect(await bashWithNetwork(ws, throughProxy(`127.0.0.1:${ports.other}`))).toBe(
        '403\n[exit code 0]',
      );
      expect(await bashWithNetwork(ws, fetchThroughProxy(ports.other))).toMatch(
        /^403 the sandbox allows no connection to 127\.0\.0\.1:\d+/,
      );
      expect(await bashWithNetwork(ws, direct(ports.other))).toBe('ECONNREFUSED\n[exit code 0]');
      expect(
        await bashWithNetwork(
          ws,
          `python3 -c "import urllib.request as r; r.urlopen('http://example.com/')" 2>&1 | tail -1`,
        ),
      ).toMatch(/HTTP Error 403/);
    });
  });
});

function withoutWorkspace(files: Record<string, string>, ws: string): Record<string, string> {
  return Object.fromEntries(Object.entries(files).filter(([path]) => !path.startsWith(`${ws}/`)));
}
