/**
 * Where no sandbox can start, `bash` never runs unconfined silently: it asks before every
 * command, in every permission mode, and says why.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/actors/tools/builtins/createBashTool.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { probeSandbox } from '../../../src/actors/tools/sandbox/probeSandbox.js';
import { AgentStatechartError } from '../../../src/index.js';
import { reply } from '../../../src/testing/index.js';
import { type Session, startSession } from '../../agent/harness.js';
import { successOutput } from './outcomes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();
const MISSING = '/nonexistent/bwrap';

/** A real executable that fails the way bwrap does where namespaces are forbidden. */
async function bwrapWithoutNamespaces(): Promise<string> {
  const path = join(await dirs.make('fake-bwrap-'), 'bwrap');
  await writeFile(
    path,
    '#!/bin/sh\necho "bwrap: No permissions to create new namespace, likely because the kernel does not allow non-privileged user namespaces." >&2\nexit 1\n',
  );
  await chmod(path, 0o755);
  return path;
}

describe('bash where no sandbox can start', () => {
  it('says why: bubblewrap missing, namespaces forbidden, or not Linux', async () => {
    expect(probeSandbox(MISSING)).toBe(
      "bubblewrap ('/nonexistent/bwrap') is not installed; install it (Debian and Ubuntu: apt-get install bubblewrap)",
    );
    expect(probeSandbox(await bwrapWithoutNamespaces())).toMatch(
      /^bubblewrap could not create a sandbox \(bwrap: No permissions to create new namespace, .*\); namespaces may be disabled here/,
    );
    expect(probeSandbox('bwrap', 'darwin')).toBe(
      'the sandbox needs Linux with bubblewrap, and this is darwin',
    );
  });

  it('asks before every call (alwaysAsk in its spec) and tells the model why', async () => {
    const registry = createToolRegistry([
      createBashTool({ sandbox: { bwrapPath: await bwrapWithoutNamespaces() } }),
    ]);
    const [spec] = registry.specs();
    expect(spec?.alwaysAsk).toBe(true);
    expect(spec?.description).toMatch(
      /No sandbox could start \(bubblewrap could not create a sandbox .*\), so commands run unconfined and a person approves each one first\.$/,
    );
  });

  it('once approved, runs unconfined and notes it in the result', async () => {
    const registry = createToolRegistry([createBashTool({ sandbox: { bwrapPath: MISSING } })]);
    const workspace = await dirs.make();
    const outcome = await runToolCall(
      registry,
      { id: 'b1', name: 'bash', input: { command: 'echo hi' } },
      { workspace },
    );
    expect(successOutput(outcome)).toBe(
      "hi\n[exit code 0]\n[ran without a sandbox: bubblewrap ('/nonexistent/bwrap') is not installed; install it (Debian and Ubuntu: apt-get install bubblewrap)]",
    );
  });

  it('with sandbox: false, runs unconfined under the usual permission rules', () => {
    const tool = createBashTool({ sandbox: false });
    expect(tool.alwaysAsk).toBe(false);
    expect(tool.description).not.toMatch(/sandbox/);
    expect(createToolRegistry([tool]).specs()[0]).not.toHaveProperty('alwaysAsk');
  });

  it('refuses sandbox options it cannot use, at creation', () => {
    const invalid = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error instanceof AgentStatechartError ? `${error.code}: ${error.message}` : error;
      }
      return 'no error';
    };
    expect(invalid(() => createBashTool({ sandbox: { allowNetwork: ['example.com'] } }))).toBe(
      `INVALID_OPTION: allowNetwork entry "example.com" is not 'host:port'; write for example 'registry.npmjs.org:443', '[::1]:8080' or '*.github.com:443'`,
    );
    expect(invalid(() => createBashTool({ sandbox: { allowWrite: ['cache'] } }))).toBe(
      'INVALID_OPTION: sandbox path "cache" is not absolute; give an absolute path or one starting with ~/',
    );
  });

  describe('in an agent', () => {
    let session: Session | undefined;
    afterEach(async () => {
      await session?.close();
      session = undefined;
    });

    it('waits for approval even in bypassPermissions, and the model reads why', async () => {
      session = await startSession(
        [
          reply([{ type: 'tool_use', name: 'bash', input: { command: 'echo ran' } }]),
          reply('Done.'),
        ],
        {
          permissions: { mode: 'bypassPermissions' },
          tools: [createBashTool({ sandbox: { bwrapPath: MISSING } })],
        },
      );
      session.agent.on('approvalRequest', ({ call }) => session!.agent.approve(call.id));
      session.agent.send('run it');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      expect(session.notes.approvalRequest.map(({ call }) => call.name)).toEqual(['bash']);
      const request = session.server.requests.at(-1)?.body;
      const last = request?.messages.at(-1)?.content;
      expect(Array.isArray(last) ? last[0] : last).toMatchObject({
        type: 'tool_result',
        content: expect.stringMatching(
          /^ran\n\[exit code 0\]\n\[ran without a sandbox: /,
        ) as unknown,
      });
      expect(request?.tools?.[0]?.description).toMatch(/No sandbox could start/);
    });
  });
});
