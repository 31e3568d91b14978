/**
 * Where no sandbox can start, `bash` never waits silently: its commands run unconfined under the
 * usual permission rules (in `bypassPermissions`, without asking), each result and the agent's
 * start say so, and `sandbox: 'required'` refuses them instead, with a tool error the model reads.
 */
import { access, chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createBashTool } from '../../../src/actors/tools/builtins/createBashTool.js';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { createShellSandbox } from '../../../src/actors/tools/sandbox/createShellSandbox.js';
import { probeSandbox } from '../../../src/actors/tools/sandbox/probeSandbox.js';
import { AgentStatechartError, type Message, type ToolResultBlock } from '../../../src/index.js';
import { reply } from '../../../src/testing/index.js';
import { type Session, startSession } from '../../agent/harness.js';
import { errorMessage, successOutput } from './outcomes.js';
import { useTempDirs } from './tempDir.js';

const dirs = useTempDirs();
const MISSING = '/nonexistent/bwrap';
const NOT_INSTALLED =
  "bubblewrap ('/nonexistent/bwrap') is not installed; install it (Debian and Ubuntu: apt-get install bubblewrap)";

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

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('bash where no sandbox can start', () => {
  it('says why: bubblewrap missing, namespaces forbidden, or no sandbox for the platform', async () => {
    expect(probeSandbox(MISSING)).toBe(NOT_INSTALLED);
    expect(probeSandbox(await bwrapWithoutNamespaces())).toMatch(
      /^bubblewrap could not create a sandbox \(bwrap: No permissions to create new namespace, .*\); namespaces may be disabled here/,
    );
    expect(createShellSandbox({}, 'darwin').unavailable).toBe(
      'no shell sandbox is implemented for darwin; bash is sandboxed on Linux, with bubblewrap',
    );
    await expect(
      createShellSandbox({}, 'win32').run('true', {
        cwd: await dirs.make(),
        timeoutMs: 1_000,
        maxOutputBytes: 100,
      }),
    ).rejects.toThrow(/^no sandbox can start: no shell sandbox is implemented for win32/);
  });

  it('runs commands unconfined under the usual permission rules, and tells the model why', async () => {
    const tool = createBashTool({ sandbox: { bwrapPath: await bwrapWithoutNamespaces() } });
    expect(tool.sandbox).toEqual({
      active: false,
      reason: expect.stringMatching(/^bubblewrap could not create a sandbox/) as unknown,
      commands: 'unconfined',
    });
    const [spec] = createToolRegistry([tool]).specs();
    expect(spec).toMatchObject({ name: 'bash', mutating: true, edit: false });
    expect(spec).not.toHaveProperty('alwaysAsk');
    expect(spec?.description).toMatch(
      /No sandbox could start \(bubblewrap could not create a sandbox .*\), so commands run unconfined, with the agent's own rights\.$/,
    );
  });

  it('notes in each result that the command ran unconfined', async () => {
    const registry = createToolRegistry([createBashTool({ sandbox: { bwrapPath: MISSING } })]);
    const outcome = await runToolCall(
      registry,
      { id: 'b1', name: 'bash', input: { command: 'echo hi' } },
      { workspace: await dirs.make() },
    );
    expect(successOutput(outcome)).toBe(
      `hi\n[exit code 0]\n[ran without a sandbox: ${NOT_INSTALLED}]`,
    );
  });

  it("with sandbox: 'required', refuses every command with an error the model reads, running nothing", async () => {
    for (const sandbox of ['required', { required: true, bwrapPath: MISSING }] as const) {
      const tool = createBashTool({ sandbox });
      if (sandbox === 'required' && tool.sandbox?.active) continue; // this machine has a sandbox
      const reason = sandbox === 'required' ? probeSandbox('bwrap') : NOT_INSTALLED;
      expect(tool.sandbox).toEqual({ active: false, reason, commands: 'refused' });
      // Refusing changes nothing: the chart need not ask a person before the model hears it.
      expect(tool.mutating).toBe(false);
      expect(tool.description).toMatch(
        /this agent runs commands only in one, so every command is refused without running\.$/,
      );
      const workspace = await dirs.make();
      const outcome = await runToolCall(
        createToolRegistry([tool]),
        { id: 'b1', name: 'bash', input: { command: 'touch ran.txt' } },
        { workspace },
      );
      expect(errorMessage(outcome)).toBe(
        `refused: this agent runs shell commands only in a sandbox, and none can start here (${reason}); the command did not run`,
      );
      expect(await exists(join(workspace, 'ran.txt'))).toBe(false);
    }
  });

  it('with sandbox: false, runs unconfined under the usual permission rules, saying nothing of a sandbox to the model', () => {
    const tool = createBashTool({ sandbox: false });
    expect(tool.sandbox).toEqual({
      active: false,
      reason: 'it is turned off (sandbox: false)',
      commands: 'unconfined',
    });
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

    const lastToolResult = (s: Session): ToolResultBlock | undefined => {
      const messages: Message[] = s.server.requests.at(-1)?.body.messages ?? [];
      const content = messages.at(-1)?.content;
      if (!Array.isArray(content)) return undefined;
      return content.find((block): block is ToolResultBlock => block.type === 'tool_result');
    };

    it('in bypassPermissions runs the command without asking, and says at start why it is unconfined', async () => {
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
      const { agent, notes, startup } = session;
      expect(agent.sandbox).toEqual({
        active: false,
        reason: NOT_INSTALLED,
        commands: 'unconfined',
      });
      agent.send('run it');
      await agent.waitUntilIdle({ timeoutMs: 30_000 });
      expect(notes.approvalRequest).toEqual([]);
      expect(lastToolResult(session)).toMatchObject({
        content: `ran\n[exit code 0]\n[ran without a sandbox: ${NOT_INSTALLED}]`,
      });
      expect(startup).toEqual([
        {
          code: 'SANDBOX_INACTIVE',
          message: `bash runs commands without a sandbox, with the agent's own rights: ${NOT_INSTALLED}. In bypassPermissions mode they run without asking (each result says it ran unconfined); in the other modes each asks first, as any shell command does.`,
          state: 'WaitingForUserInput',
          event: undefined,
        },
      ]);
    });

    it('in acceptEdits asks first, as for any shell command', async () => {
      session = await startSession(
        [
          reply([{ type: 'tool_use', name: 'bash', input: { command: 'echo ran' } }]),
          reply('Done.'),
        ],
        {
          permissions: { mode: 'acceptEdits' },
          tools: [createBashTool({ sandbox: { bwrapPath: MISSING } })],
        },
      );
      session.agent.on('approvalRequest', ({ call }) => session!.agent.approve(call.id));
      session.agent.send('run it');
      await session.agent.waitUntilIdle({ timeoutMs: 30_000 });
      expect(session.notes.approvalRequest.map(({ call }) => call.name)).toEqual(['bash']);
      expect(lastToolResult(session)?.content).toMatch(
        /^ran\n\[exit code 0\]\n\[ran without a sandbox: /,
      );
    });

    it("with sandbox: 'required' refuses the command without asking, and says so at start", async () => {
      session = await startSession(
        [
          reply([{ type: 'tool_use', name: 'bash', input: { command: 'touch ran.txt' } }]),
          reply('I cannot run commands here.'),
        ],
        {
          permissions: { mode: 'default' },
          tools: [createBashTool({ sandbox: { required: true, bwrapPath: MISSING } })],
        },
      );
      const { agent, notes, startup, workspace } = session;
      expect(agent.sandbox).toMatchObject({ active: false, commands: 'refused' });
      agent.send('run it');
      await agent.waitUntilIdle({ timeoutMs: 30_000 });
      expect(notes.approvalRequest).toEqual([]);
      expect(lastToolResult(session)).toMatchObject({
        is_error: true,
        content: expect.stringMatching(
          /^refused: this agent runs shell commands only in a sandbox, and none can start here/,
        ) as unknown,
      });
      expect(await exists(join(workspace, 'ran.txt'))).toBe(false);
      expect(startup.map(({ code, message }) => [code, message])).toEqual([
        [
          'SANDBOX_INACTIVE',
          `bash refuses every command: it runs commands only in a sandbox (sandbox: 'required'), and none can start here (${NOT_INSTALLED})`,
        ],
      ]);
    });

    it('reports no sandbox and says nothing when no tool runs shell commands', async () => {
      session = await startSession([reply('Hello.')], { tools: [] });
      expect(session.agent.sandbox).toBeUndefined();
      session.agent.send('hi');
      await session.agent.waitUntilIdle({ timeoutMs: 30_000 });
      expect(session.startup).toEqual([]);
    });
  });
});
