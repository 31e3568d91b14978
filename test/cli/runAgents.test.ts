/**
 * `agent-statechart run --agents FILE`: the subagents of a JSON file reach the agent — the model's
 * task call runs one, its tool calls are shown (and asked about) under its name, and its answer is
 * the call's result — and a file that cannot be used is refused, naming it, before anything
 * starts. With `--session`, the session records its agents and its subagent's session is stored
 * beside it: both are read back (`sessions show`, a replay of the log) without a diagnostic, a
 * resume with other agents is refused, and so is `run --session` on the subagent's session.
 */
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { offlineModel } from '../../src/cli/offlineModel.js';
import { cliChartConfig } from '../../src/cli/sessionConfig.js';
import { sessionsInProcess } from './sessionsInProcess.js';
import { type AgentDiagnostic, AgentCore } from '../../src/machine/index.js';
import {
  createSqliteSessionStore,
  openSession,
  type StoredEntry,
  subagentLinkOf,
} from '../../src/persistence/index.js';
import {
  type MessagesApiServer,
  type MessagesRequestBody,
  startMessagesApiServer,
} from '../../src/testing/index.js';
import { runCli } from './cliProcess.js';
import { runPiped } from './pipedRun.js';

let workspace: string;
let files: string;
let server: MessagesApiServer;

beforeEach(async () => {
  workspace = await mkdtemp(join(tmpdir(), 'run-agents-'));
  files = await mkdtemp(join(tmpdir(), 'run-agents-files-'));
  await writeFile(join(workspace, 'notes.txt'), 'remember the heron\n');
  server = await startMessagesApiServer({ script: offlineModel });
});

afterEach(async () => {
  await server.close();
  await rm(workspace, { recursive: true, force: true });
  await rm(files, { recursive: true, force: true });
});

/** A researcher that may only read, with a system prompt of its own. */
const RESEARCHER = {
  description: 'Reads files and reports what they say; changes nothing',
  system: 'You research. Report what the files say; change nothing.',
  tools: ['read_file', 'list_files'],
  maxTurns: 5,
};

/** Writes `content` (JSON unless a string) to a file beside the workspace; answers its path. */
async function writeAgents(content: unknown, name = 'agents.json'): Promise<string> {
  const path = join(files, name);
  await writeFile(path, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  return path;
}

/** `run` against the offline model's script behind the local server, so requests can be read. */
function run(lines: string[], argv: string[]) {
  const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL };
  return runPiped(workspace, lines, argv, env);
}

function requests(): MessagesRequestBody[] {
  return server.requests.map((request) => request.body);
}

function toolNames(request: MessagesRequestBody): string[] {
  return (request.tools ?? []).map((tool) => tool.name);
}

/** `sessions …` in this process, on the test's workspace. */
const sessions = (argv: string[]) => sessionsInProcess([...argv, '--workspace', workspace]);

/**
 * A log replayed from its first entry through pure mode with the chart `metadata` gives: the
 * diagnostics of the events it refused, and the actions it asked for.
 */
function replay(
  entries: readonly StoredEntry[],
  metadata: Record<string, unknown> | undefined,
): { diagnostics: AgentDiagnostic[]; actions: string[] } {
  const diagnostics: AgentDiagnostic[] = [];
  const actions: string[] = [];
  const core = new AgentCore(cliChartConfig(metadata), {
    onDiagnostic: (diagnostic) => diagnostics.push(diagnostic),
  });
  for (const entry of entries) {
    if (entry.kind !== 'event') continue;
    for (const action of core.handleEvent(entry.data) ?? []) actions.push(action.type);
  }
  return { diagnostics, actions };
}

describe('agent-statechart run --agents', { timeout: 60_000 }, () => {
  it("runs the model's task call in a subagent: its calls are shown under its name, and its answer is the call's result", async () => {
    const file = await writeAgents({ researcher: RESEARCHER });
    const { code, printed } = await run(['task researcher read notes.txt'], ['--agents', file]);
    expect(code).toBe(0);
    expect(printed).toContain(
      `agents from ${file}: researcher (the task tool hands them sub-tasks)\n`,
    );
    expect(printed).toContain('  ⚙ task {"agent":"researcher","prompt":"read notes.txt"}\n');
    expect(printed).toMatch(
      /⚙ researcher › read_file \{"path":"notes\.txt"\}\n {2}✓ researcher › read_file\n {2}✓ task\n[\s\S]*claude> Result:\nResult:\nremember the heron\n/,
    );

    // The parent's request offers the task tool; the subagent's has its spec's system prompt and
    // tools, and its prompt is the task's.
    const [first, child, , last] = requests();
    expect(toolNames(first!)).toContain('task');
    expect(JSON.stringify(child!.system)).toContain(JSON.stringify(RESEARCHER.system));
    expect(JSON.stringify(first!.system ?? null)).not.toContain(RESEARCHER.system);
    expect(toolNames(child!)).toEqual(['read_file', 'list_files', 'task']);
    expect(child!.messages).toEqual([{ role: 'user', content: 'read notes.txt' }]);
    // The subagent's final answer is the task call's result the parent's model reads.
    expect(JSON.stringify(last!.messages.at(-1)?.content)).toContain(
      '"content":"Result:\\nremember the heron\\n"',
    );
  });

  it("asks before a subagent's call that needs approval, naming the subagent, and runs it once approved", async () => {
    const file = await writeAgents({
      tester: { description: 'Runs commands and says how they went' },
    });
    const { code, printed } = await run(
      ['task tester run touch made-by-tester.txt', 'y'],
      ['--agents', file],
    );
    expect(code).toBe(0);
    expect(printed).toContain(
      'allow tester › bash {"command":"touch made-by-tester.txt"}? [y]es / [n]o [why] / [a]lways ',
    );
    expect(printed).toContain('  ✓ tester › bash\n');
    await access(join(workspace, 'made-by-tester.txt'));
  });

  it('refuses a file that is missing, not JSON, not an object or not valid agents, naming it, with exit code 1 before anything starts', async () => {
    const missing = join(files, 'missing.json');
    const broken = await writeAgents('{ "researcher": ', 'broken.json');
    const list = await writeAgents([RESEARCHER], 'list.json');
    const unknownTool = await writeAgents(
      { researcher: { ...RESEARCHER, tools: ['read_file', 'grep'] } },
      'unknown-tool.json',
    );
    const misspelt = await writeAgents(
      { researcher: { description: 'Reads', systemPrompt: 'You research.' } },
      'misspelt.json',
    );
    const runs = await Promise.all(
      [missing, broken, list, unknownTool, misspelt].map((file) =>
        runCli(['run', '--workspace', workspace, '--agents', file], ['list files']),
      ),
    );
    for (const refused of runs) {
      expect(refused.code).toBe(1);
      // Nothing started: no banner, no prompt; one line says why.
      expect(refused.stdout).toBe('');
      expect(refused.stderr.trimEnd().split('\n')).toHaveLength(1);
    }
    const [noFile, notJson, notObject, badTool, badField] = runs.map((refused) => refused.stderr);
    expect(noFile).toContain(`--agents ${missing}: ENOENT`);
    expect(notJson).toContain(`--agents ${broken}: not JSON (`);
    expect(notObject).toContain(
      `--agents ${list}: must be a JSON object of agents by name, { "name": { "description": "…" } }; got an array`,
    );
    expect(badTool).toContain(
      `--agents ${unknownTool}: agents['researcher'].tools must be names of the parent's tools (a subagent's tools are some of its parent's); got 'grep'`,
    );
    expect(badField).toContain(
      `--agents ${misspelt}: agents['researcher'] has 'systemPrompt', which an agent's spec does not take (it takes description, system, tools, model, maxTurns)`,
    );
  });

  it("records a session's agents and stores its subagent's session beside it; both read back without a diagnostic; a resume with other agents, or of the subagent's session, is refused", async () => {
    const file = await writeAgents({ researcher: RESEARCHER });
    // Hooks of every kind: the subagent runs only the tool hooks of them.
    const hooks = join(files, 'hooks.mjs');
    await writeFile(
      hooks,
      `export const hooks = {
  userPromptSubmit: () => undefined,
  preToolUse: () => undefined,
  stop: ({ text }) => (text.startsWith('Result:') ? { decision: 'continue', reason: 'say more' } : undefined),
};
`,
    );
    const session = ['--session', 'p1', '--hooks', hooks];
    const first = await run(['task researcher read notes.txt'], [...session, '--agents', file]);
    expect(first.code).toBe(0);
    expect(first.printed).toContain('session p1 · new');
    expect(first.printed).toContain('✓ researcher › read_file');

    const store = createSqliteSessionStore({
      path: join(workspace, '.agent-statechart', 'sessions.db'),
    });
    try {
      const parent = (await store.load('p1'))!.header.metadata;
      expect(parent?.agents).toEqual({ researcher: RESEARCHER });
      const children = (await store.list()).filter(
        (stored) => subagentLinkOf(stored.metadata)?.parentSessionId === 'p1',
      );
      expect(children).toHaveLength(1);
      const childId = children[0]!.sessionId;
      const { callId, agent } = subagentLinkOf(children[0]!.metadata)!;
      expect({ childId, agent }).toEqual({ childId: `p1/${callId}`, agent: 'researcher' });
      const child = (await store.load(childId))!.header.metadata;

      // Each log replayed from its first entry with the chart cliChartConfig gives it, as
      // `inspect --session` replays it: not one event refused, and the transcript the session has.
      for (const [id, metadata] of [
        ['p1', parent],
        [childId, child],
      ] as const) {
        const entries = await store.entries(id);
        expect(replay(entries, metadata).diagnostics).toEqual([]);
        const { core } = await openSession(store, id, {
          config: cliChartConfig(metadata),
          mustExist: true,
        });
        expect(core.context.messages.length).toBeGreaterThan(2);
      }
      // The parent's task call is read back as the subagent's it was, only with the agents.
      const parentEntries = await store.entries('p1');
      expect(replay(parentEntries, parent).actions).toContain('StartSubagent');
      expect(replay(parentEntries, { ...parent, agents: undefined }).actions).not.toContain(
        'StartSubagent',
      );
      // Read back with the parent's chart, or without the tool hook it ran, the child's log has
      // events refused: the check above can fail.
      const childEntries = await store.entries(childId);
      expect(replay(childEntries, { ...child, subagent: undefined }).diagnostics).not.toEqual([]);
      expect(replay(childEntries, { ...child, hooks: undefined }).diagnostics).not.toEqual([]);

      const shown = await sessions(['show', 'p1']);
      expect(shown.code, shown.err).toBe(0);
      expect(shown.out).toContain(`"agents":${JSON.stringify({ researcher: RESEARCHER })}`);
      expect(shown.out).toContain(
        `  subagents ${childId} (agent researcher, task call ${callId}, WaitingForUserInput, 4 messages)`,
      );
      expect(shown.out).toMatch(
        /^ +\d+ {2}user {7}tool_result "Result:\\nremember the heron\\n"$/m,
      );
      expect(shown.out).not.toMatch(/EVENT_NOT_ACCEPTED|cannot be rebuilt/);
      const shownChild = await sessions(['show', childId]);
      expect(shownChild.code, shownChild.err).toBe(0);
      expect(shownChild.out).toContain(`  parent    p1 (task call ${callId}, agent researcher)`);
      expect(shownChild.out).toMatch(/^ +4 {2}assistant {2}"Result:\\nremember the heron\\n"$/m);
      expect(shownChild.out).not.toMatch(/EVENT_NOT_ACCEPTED|cannot be rebuilt/);

      // Resumes with other agents, or other specs under the same name: refused before anything
      // starts, and nothing is written.
      const before = (await store.entries('p1')).length;
      const other = await writeAgents({ reviewer: RESEARCHER }, 'other.json');
      await expect(run(['list files'], [...session, '--agents', other])).rejects.toThrow(
        `--agents ${other} names 'reviewer', but session 'p1' runs with 'researcher' (a session keeps the agents it was created with, since its log is read back with them); leave out --agents to resume it with its own, or start a new session (another --session NAME) for these`,
      );
      const changed = await writeAgents(
        { researcher: { ...RESEARCHER, tools: ['read_file'] } },
        'changed.json',
      );
      await expect(run(['list files'], [...session, '--agents', changed])).rejects.toThrow(
        `--agents ${changed} gives 'researcher' another spec than session 'p1' records`,
      );
      await expect(run(['list files'], ['--session', childId, '--hooks', hooks])).rejects.toThrow(
        `session ${childId} is a subagent's session (agent researcher, task call ${callId} of session p1); resume p1 instead`,
      );
      expect(await store.entries('p1')).toHaveLength(before);
      expect(await store.entries(childId)).toHaveLength(children[0]!.head);

      // Resumed without --agents it runs with its own; the same specs, in another order, are
      // taken too.
      const resumed = await run(['task researcher list files'], session);
      expect(resumed.code).toBe(0);
      expect(resumed.printed).toContain('agents of session p1: researcher');
      expect(resumed.printed).toContain('⚙ researcher › list_files {"path":"."}');
      const reordered = await writeAgents(
        { researcher: Object.fromEntries(Object.entries(RESEARCHER).reverse()) },
        'reordered.json',
      );
      const again = await run(['/quit'], [...session, '--agents', reordered]);
      expect(again.code).toBe(0);
      expect(again.printed).toContain(`agents from ${reordered}: researcher`);
    } finally {
      await store.close();
    }
  });

  it('refuses --agents for a session created without agents', async () => {
    const created = await run(['list files'], ['--session', 'plain']);
    expect(created.code).toBe(0);
    const file = await writeAgents({ researcher: RESEARCHER });
    await expect(run(['list files'], ['--session', 'plain', '--agents', file])).rejects.toThrow(
      `session 'plain' was created without agents, so --agents ${file} cannot be given to it`,
    );
  });
});
