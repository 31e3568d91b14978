/**
 * A stored session in the inspector page, in a real browser (Debian's Chromium through
 * playwright-core): `agent-statechart run --session` stores a turn in the workspace's SQLite
 * file, `agent-statechart inspect --session` (another process) replays its log into the page,
 * and the page steps back and forth through it — then follows a new run that appends to it. And
 * sessions stored in-process that wait: for the user's answer to the model's question, and for
 * the caller's hooks on a turn; and one that compacted its transcript. And a tree of agents: the
 * page of the parent's session links to its subagents' sessions, each of which opens in the same
 * inspector with a link back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  createAgent,
  createMemorySessionStore,
  createSqliteSessionStore,
  type Message,
  type PreCompactAnswer,
  type StopAnswer,
  type UserPromptSubmitAnswer,
} from '../../src/index.js';
import { inspectStoredSession, startInspectorServer } from '../../src/inspect/index.js';
import { reply, type ScriptFunction, startMessagesApiServer } from '../../src/testing/index.js';
import { gitWorkspace } from '../agent/harness.js';
import { runCli, startCli } from '../cli/cliProcess.js';
import { findLogRow, launchChromium, screenshot } from './browser.js';
import { hookGate } from './hookGate.js';

/** `null` when no Chromium was found: the tests are skipped (see test/support/chromiumSetup.ts). */
const chromiumPath = inject('chromiumPath');
let browser: Browser;
let page: Page;
let workspace: string;

beforeAll(async () => {
  if (chromiumPath === null) return;
  [browser, workspace] = await Promise.all([
    launchChromium(chromiumPath),
    gitWorkspace({ 'README.md': '# notes\n' }),
  ]);
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
});

afterAll(async () => {
  await browser?.close();
  if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
});

const text = async (testId: string) => (await page.getByTestId(testId).textContent()) ?? '';
const viewedState = () => page.locator('body').getAttribute('data-view-state');
/** The page's view of `{ WaitingForUserInput: 'Ready' }`: every state the value is in. */
const READY = 'WaitingForUserInput WaitingForUserInput.Ready';

/** What the stored session's model asks. */
const QUESTIONS = [
  {
    header: 'Database',
    question: 'Which database should the service use?',
    options: [{ label: 'PostgreSQL' }, { label: 'SQLite' }],
  },
];

/** A request's first message, or its system prompt, as text. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return '';
  return value
    .map((block: { text?: unknown }) => (typeof block.text === 'string' ? block.text : ''))
    .join(' ');
}

/**
 * The model of a tree of agents, each told apart by its system prompt: the lead hands two
 * research tasks out; the researcher of alpha hands a check to a checker.
 */
const treeModel: ScriptFunction = (request) => {
  const system = textOf(request.system);
  const messages = request.messages as Message[];
  const first = textOf(messages[0]?.content);
  if (system.includes('the checker')) return reply('checked: alpha holds');
  if (system.includes('the researcher')) {
    const topic = first.includes('alpha') ? 'alpha' : 'beta';
    if (topic === 'alpha' && messages.length === 1) {
      return reply([
        { type: 'tool_use', name: 'task', input: { agent: 'checker', prompt: 'check alpha' } },
      ]);
    }
    return reply(`${topic}: researched`);
  }
  if (messages.length > 1) return reply('Both done.');
  return reply([
    { type: 'text', text: 'Handing both out.' },
    { type: 'tool_use', name: 'task', input: { agent: 'researcher', prompt: 'research alpha' } },
    { type: 'tool_use', name: 'task', input: { agent: 'researcher', prompt: 'research beta' } },
  ]);
};

describe.runIf(chromiumPath)('agent-statechart inspect --session', { timeout: 90_000 }, () => {
  it('replays a stored session into the page, steps back and forth through it, and follows what a new run appends', async ({
    onTestFinished,
  }) => {
    const run = ['run', '--workspace', workspace, '--mode', 'acceptEdits', '--session', 'notes'];
    const stored = await runCli(run, ['write notes.txt buy milk']);
    expect(stored.code, stored.stderr).toBe(0);

    const inspect = await startCli(['inspect', '--session', 'notes', '--workspace', workspace]);
    onTestFinished(() => inspect.crash());
    await inspect.expect('Ctrl-C stops.');
    const url = /^inspector (\S+)$/m.exec(inspect.stdout)?.[1];
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(inspect.stdout).toMatch(/^session {3}notes from .+sessions\.db: \d+ log entries/m);
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(url!);

    // The page opens at the session's last step: the turn is over, the transcript complete.
    await expect.poll(() => text('agent-tabs')).toContain('notes');
    await page.locator('[data-state="WaitingForUserInput.Ready"].is-active').waitFor();
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => text('conversation-caption')).toBe('4 messages');
    const card = page.locator('[data-tool-call]');
    expect(await card.locator('.name').textContent()).toBe('write_file');
    expect(await card.getAttribute('data-status')).toBe('done');

    // Back to the session's creation, then forward through its log a step at a time.
    await page.getByTestId('step-first').click();
    await expect.poll(() => text('step-position')).toMatch(/^step 1 \/ \d+/);
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => text('conversation-caption')).toBe('0 messages');
    await page.keyboard.press('ArrowRight');
    // The input's step, a microstep at a time, as a live agent's: CallingLlm sizes the request
    // (a transient state: nothing to compact), then streams it.
    await expect.poll(() => viewedState()).toBe('CallingLlm CallingLlm.Sizing');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => viewedState()).toBe('CallingLlm CallingLlm.Streaming');
    await expect.poll(() => text('conversation-caption')).toBe('1 message');

    // The step that entered ExecutingTools: the stored call is running there.
    await (await findLogRow(page, '→ ExecutingTools'))?.click();
    await expect
      .poll(() => viewedState())
      .toBe(
        'ExecutingTools ExecutingTools.Hooks ExecutingTools.Hooks.Idle ExecutingTools.Approvals ExecutingTools.Approvals.Idle ExecutingTools.Subagents ExecutingTools.Subagents.Idle ExecutingTools.Questions ExecutingTools.Questions.Idle',
      );
    await page.locator('[data-state="ExecutingTools"].is-active').waitFor();
    await expect.poll(() => card.getAttribute('data-status')).toBe('running');
    // The call's outcome is taken in ExecutingTools; the next microstep leaves for the hook.
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => card.getAttribute('data-status')).toBe('done');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => viewedState()).toBe('PostToolsHook');
    await (await findLogRow(page, 'PostToolsHookCompleted'))?.click();
    await expect.poll(() => text('payload')).toContain('"actionTaken": true');
    await screenshot(page, 'stored-session');

    // A new run of the session appends to its log: the page, back at live, shows it.
    await page.getByTestId('go-live').click();
    const resumed = await runCli(run, ['read notes.txt']);
    expect(resumed.stdout).toContain('session notes · resumed from');
    await expect.poll(() => text('conversation-caption'), { timeout: 20_000 }).toBe('8 messages');
    expect(await page.getByTestId('conversation').textContent()).toContain('read notes.txt');
    expect(errors).toEqual([]);

    inspect.interrupt();
    expect((await inspect.exited).code).toBe(0);
  });

  it('shows a stored session waiting for answers: Questions.Waiting lit, the questions open, then answered', async ({
    onTestFinished,
  }) => {
    const [llm, inspector] = await Promise.all([
      startMessagesApiServer({
        script: [
          reply([{ type: 'tool_use', name: 'ask_user', input: { questions: QUESTIONS } }]),
          reply('SQLite it is.'),
        ],
      }),
      startInspectorServer(),
    ]);
    const store = createMemorySessionStore();
    const agent = createAgent({
      workspace,
      store,
      sessionId: 'planning',
      askUser: true,
      autoCommit: false,
      anthropic: { baseURL: llm.baseURL, apiKey: 'test-key' },
    });
    onTestFinished(async () => {
      await agent.shutdown({ timeoutMs: 2_000 });
      await Promise.all([llm.close(), inspector.close()]);
    });
    const asked = new Promise<string>((resolve) =>
      agent.on('question', ({ callId }) => resolve(callId)),
    );
    agent.send('Plan the service');
    const callId = await asked;

    // Replayed from the log alone, in a recorder the agent never fed.
    const view = await inspectStoredSession(inspector.recorder, store, 'planning', {
      config: { askUser: true },
      follow: true,
      followIntervalMs: 50,
    });
    onTestFinished(() => view.stop());
    await page.goto(inspector.url);
    await expect.poll(() => text('agent-tabs')).toContain('planning');
    await expect
      .poll(() => viewedState())
      .toBe(
        'ExecutingTools ExecutingTools.Hooks ExecutingTools.Hooks.Idle ExecutingTools.Approvals ExecutingTools.Approvals.Idle ExecutingTools.Subagents ExecutingTools.Subagents.Idle ExecutingTools.Questions ExecutingTools.Questions.Waiting',
      );
    await page.locator('[data-state="ExecutingTools.Questions.Waiting"].is-active').waitFor();
    await page.locator('[data-state="ExecutingTools.Approvals.Idle"].is-active').waitFor();
    const card = page.locator(`[data-tool-call="${callId}"]`);
    await expect.poll(() => card.getAttribute('data-status')).toBe('awaitingAnswer');
    expect(await card.locator('.question-text').textContent()).toBe(QUESTIONS[0]!.question);
    expect(await card.locator('.choice-label').allTextContents()).toEqual(['PostgreSQL', 'SQLite']);
    expect(await text('facts')).toContain('waiting for an answer on Database');
    await screenshot(page, 'stored-session-question');

    // The answer is stored by the agent; the page, following the log, shows it.
    agent.answer(callId, ['SQLite']);
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => card.getAttribute('data-status')).toBe('done');
    expect(await card.locator('.result').textContent()).toContain('→ SQLite');
    expect(view.warnings).toEqual([]);
  });

  it('shows a stored session waiting for its hooks: CheckingPrompt lit, the blocked prompt logged with its reason, then CheckingStop lit', async ({
    onTestFinished,
  }) => {
    const prompts = hookGate<{ text: string }, UserPromptSubmitAnswer>();
    const stop = hookGate<{ text: string }, StopAnswer>();
    const [llm, inspector] = await Promise.all([
      startMessagesApiServer({ script: [reply('Deployed on Monday.')] }),
      startInspectorServer(),
    ]);
    const store = createMemorySessionStore();
    const agent = createAgent({
      workspace,
      store,
      sessionId: 'release',
      autoCommit: false,
      hooks: { userPromptSubmit: prompts.hook, stop: stop.hook },
      anthropic: { baseURL: llm.baseURL, apiKey: 'test-key' },
    });
    onTestFinished(async () => {
      await agent.shutdown({ timeoutMs: 2_000 });
      await Promise.all([llm.close(), inspector.close()]);
    });
    agent.send('deploy on Friday');
    await prompts.called(1);
    await agent.recorded();

    // Replayed from the log alone, with the hooks the session runs with: the chart waits for them.
    const view = await inspectStoredSession(inspector.recorder, store, 'release', {
      config: { hooks: { userPromptSubmit: true, stop: true } },
      follow: true,
      followIntervalMs: 50,
    });
    onTestFinished(() => view.stop());
    await page.goto(inspector.url);
    await expect.poll(() => text('agent-tabs')).toContain('release');
    await expect
      .poll(() => viewedState())
      .toBe('WaitingForUserInput WaitingForUserInput.CheckingPrompt');
    await page.locator('[data-state="WaitingForUserInput.CheckingPrompt"].is-active').waitFor();
    expect(await text('facts')).toContain(
      'waiting for the userPromptSubmit hook on the prompt: deploy on Friday',
    );
    await screenshot(page, 'stored-session-checking-prompt');

    // The hook's answer is stored by the agent; the page, following the log, shows the prompt
    // dropped, in the row of the answer that dropped it.
    prompts.answer({ decision: 'block', reason: 'no deploys on Fridays' });
    await expect.poll(() => viewedState()).toBe(READY);
    const reason = 'the userPromptSubmit hook blocked it: no deploys on Fridays';
    const row = await findLogRow(page, 'prompt dropped');
    expect(await row?.locator('.type').textContent()).toBe('UserPromptSubmitDecision');
    expect(await row?.locator('.note').textContent()).toBe(`prompt dropped: ${reason}`);
    const dropped = page.getByTestId('dropped-prompt');
    expect(await dropped.locator('.text').textContent()).toBe('deploy on Friday');
    expect(await dropped.locator('.reason').textContent()).toBe(reason);
    expect(await text('conversation-caption')).toBe('0 messages');

    // The next prompt goes through; the model ends the turn, and the stop hook decides on it.
    agent.send('deploy on Monday');
    await prompts.called(2);
    prompts.answer();
    expect((await stop.called(1)).text).toBe('Deployed on Monday.');
    await expect
      .poll(() => viewedState())
      .toBe('ProcessingLlmResponse ProcessingLlmResponse.CheckingStop');
    await page.locator('[data-state="ProcessingLlmResponse.CheckingStop"].is-active').waitFor();
    expect(await text('facts')).toContain('waiting for the stop hook');
    expect(await text('conversation-caption')).toBe('2 messages');
    await screenshot(page, 'stored-session-checking-stop');

    stop.answer();
    await expect.poll(() => viewedState()).toBe(READY);
    expect(await text('facts')).not.toContain('waiting for');
    expect(view.warnings).toEqual([]);
  });

  it('shows a stored session that compacted: CheckingCompaction lit while the preCompact hook decides, then the summarised messages, the compaction with its summary, and Compacting when stepped back to', async ({
    onTestFinished,
  }) => {
    const preCompact = hookGate<{ trigger: string; summarised: number }, PreCompactAnswer>();
    const summary = 'We looked at three topics; the cache keeps entries for an hour.';
    const [llm, inspector] = await Promise.all([
      startMessagesApiServer({
        // Answers by the request: the summary when asked for one.
        script: (request) =>
          JSON.stringify(request.messages.at(-1)).includes('write a summary')
            ? reply(summary)
            : reply(`Noted: ${'the cache keeps entries for an hour. '.repeat(12)}`),
      }),
      startInspectorServer(),
    ]);
    const store = createMemorySessionStore();
    // A window small enough that the third request compacts first; no tools, so the replay's
    // chart estimates the request as the agent's did.
    const compaction = { contextWindow: 1_000, threshold: 0.5, keepRecentTokens: 100 };
    const agent = createAgent({
      workspace,
      store,
      sessionId: 'long-talk',
      tools: [],
      autoCommit: false,
      compaction,
      hooks: { preCompact: preCompact.hook },
      anthropic: { baseURL: llm.baseURL, apiKey: 'test-key' },
    });
    onTestFinished(async () => {
      await agent.shutdown({ timeoutMs: 2_000 });
      await Promise.all([llm.close(), inspector.close()]);
    });
    for (const topic of ['the cache', 'the queue']) {
      agent.send(`Tell me about ${topic}: ${'how long does it keep things? '.repeat(30)}`);
      await agent.waitUntilIdle({ timeoutMs: 10_000 });
    }
    agent.send('And the logs?');
    expect((await preCompact.called(1)).trigger).toBe('auto');
    await agent.recorded();

    const view = await inspectStoredSession(inspector.recorder, store, 'long-talk', {
      config: { tools: [], compaction, hooks: { preCompact: true } },
      follow: true,
      followIntervalMs: 50,
    });
    onTestFinished(() => view.stop());
    await page.goto(inspector.url);
    await expect.poll(() => text('agent-tabs')).toContain('long-talk');
    await expect.poll(() => viewedState()).toBe('CallingLlm CallingLlm.CheckingCompaction');
    await page.locator('[data-state="CallingLlm.CheckingCompaction"].is-active').waitFor();
    expect(await text('facts')).toContain('waiting for the preCompact hook');
    await expect.poll(() => text('conversation-caption')).toBe('5 messages');

    // The hook lets it go on; the summary replaces the older messages, which the page keeps.
    preCompact.answer({ instructions: 'Keep the durations.' });
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    await expect.poll(() => viewedState()).toBe(READY);
    const conversation = page.getByTestId('conversation');
    const card = page.getByTestId('compaction');
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.locator('.role').textContent()).toBe('compacted · automatically');
    expect(await card.locator('.reason').textContent()).toBe(
      '3 messages summarised, 2 kept: the model sees this summary in their place',
    );
    expect(await card.locator('.text').textContent()).toBe(summary);
    // The summarised messages stay, dimmed, above it: the first question among them.
    const summarised = conversation.locator('.message.summarised');
    expect(await summarised.count()).toBe(3);
    expect(await summarised.first().textContent()).toContain('Tell me about the cache');
    expect(await text('conversation-caption')).toBe('4 messages the model sees, 6 in all');
    expect(await text('facts')).toContain('compacted 1 time');
    const row = await findLogRow(page, 'compacted (auto)');
    expect(await row?.locator('.type').textContent()).toBe('LlmCompleted');
    expect(await row?.locator('.note').textContent()).toBe(
      'compacted (auto): 3 messages summarised, 2 kept',
    );
    // News, not trouble: not in the colour of a dropped prompt.
    expect(await row?.locator('.note').getAttribute('class')).toBe('note news');
    await card.scrollIntoViewIfNeeded();
    await screenshot(page, 'stored-session-compacted');

    // Back to the step the hook answered: the summary is being written, nothing replaced yet.
    await (await findLogRow(page, 'PreCompactDecision'))?.click();
    await expect.poll(() => viewedState()).toBe('CallingLlm CallingLlm.Compacting');
    await page.locator('[data-state="CallingLlm.Compacting"].is-active').waitFor();
    await expect.poll(() => card.count()).toBe(0);
    expect(await text('conversation-caption')).toBe('5 messages');
    expect(view.warnings).toEqual([]);
  });

  it('shows where a stored session sits in the tree of agents, and opens its subagents’ sessions, each linking back', async ({
    onTestFinished,
  }) => {
    const folder = await mkdtemp(join(tmpdir(), 'agent-tree-'));
    onTestFinished(() => rm(folder, { recursive: true, force: true }));
    const database = join(folder, 'sessions.db');
    const llm = await startMessagesApiServer({ script: treeModel });
    onTestFinished(() => llm.close());
    const store = createSqliteSessionStore({ path: database });
    const agent = createAgent({
      workspace,
      store,
      sessionId: 'lead',
      autoCommit: false,
      agents: {
        researcher: {
          description: 'Researches a topic',
          system: 'You are the researcher.',
          tools: [],
        },
        checker: { description: 'Checks a finding', system: 'You are the checker.', tools: [] },
      },
      anthropic: { baseURL: llm.baseURL, apiKey: 'test-key' },
    });
    expect(await agent.run('Research alpha and beta', { timeoutMs: 20_000 })).toBe('Both done.');
    await agent.shutdown({ timeoutMs: 2_000 });
    // Each subagent's session, stored by the agent under its parent's: found by what its header says.
    const stored = await store.list();
    await store.close();
    const linkOf = (sessionId: string) =>
      stored.find((session) => session.sessionId === sessionId)?.metadata?.subagent as
        { parentSessionId: string; callId: string; agent: string } | undefined;
    const childOf = (parent: string, agentName: string) =>
      stored
        .filter((session) => {
          const link = linkOf(session.sessionId);
          return link?.parentSessionId === parent && link.agent === agentName;
        })
        .sort((a, b) => b.messageCount - a.messageCount);
    // The researcher of alpha made a call of its own: four messages to the other's two.
    const [alpha, beta] = childOf('lead', 'researcher');
    const [checker] = childOf(alpha!.sessionId, 'checker');
    expect([alpha?.messageCount, beta?.messageCount, checker?.messageCount]).toEqual([4, 2, 2]);
    const alphaCall = linkOf(alpha!.sessionId)!.callId;

    const inspect = await startCli(['inspect', '--session', 'lead', '--store', database]);
    onTestFinished(() => inspect.crash());
    await inspect.expect('Ctrl-C stops.');
    expect(inspect.stdout).toContain('subagents 2 sessions, linked from the page');
    const url = /^inspector (\S+)$/m.exec(inspect.stdout)![1]!;
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(url);

    // The lead's page: no parent, its two researchers' sessions, each with its task call.
    const place = page.getByTestId('session-place');
    await expect.poll(() => page.getByTestId('subagent-session').count()).toBe(2);
    expect(await place.isVisible()).toBe(true);
    expect(await page.getByTestId('session-self').textContent()).toBe('lead');
    expect(await page.getByTestId('session-parent').count()).toBe(0);
    const alphaLink = page.locator(`[data-testid="subagent-session"][data-call-id="${alphaCall}"]`);
    expect(await alphaLink.textContent()).toBe(
      `researcher ${alphaCall} WaitingForUserInput 4 messages`,
    );
    expect(await alphaLink.getAttribute('href')).toBe(
      `/?session=${encodeURIComponent(alpha!.sessionId)}`,
    );
    // The task call in the transcript links to the same session.
    const taskLink = page.locator(
      `[data-tool-call="${alphaCall}"] [data-testid="task-session-link"]`,
    );
    await expect.poll(() => taskLink.isVisible()).toBe(true);
    expect(await taskLink.getAttribute('data-session-id')).toBe(alpha!.sessionId);
    expect(await taskLink.textContent()).toBe("researcher's session ›");
    await screenshot(page, 'stored-session-tree-lead');

    // Following it opens the researcher's session in this inspector, with the way back.
    await alphaLink.click();
    await page.waitForURL((address) => address.searchParams.get('session') === alpha!.sessionId);
    const selectedTab = page.locator('[data-testid="agent-tab"][aria-selected="true"]');
    await expect
      .poll(() => selectedTab.getAttribute('data-agent-id'))
      .toBe(`stored:${alpha!.sessionId}`);
    await expect.poll(() => text('conversation-caption')).toBe('4 messages');
    expect(await text('conversation')).toContain('research alpha');
    expect(await text('conversation')).toContain('alpha: researched');
    expect(await text('conversation')).not.toContain('Handing both out.');
    const parentLink = page.getByTestId('session-parent');
    await expect.poll(() => parentLink.getAttribute('href')).toBe('/?session=lead');
    expect(await parentLink.textContent()).toBe('lead');
    expect(await page.getByTestId('session-self').textContent()).toBe(
      `researcher ${alpha!.sessionId}`,
    );
    expect(await text('session-task-call')).toBe(`task call ${alphaCall} of lead`);
    expect(await page.title()).toBe(`${alpha!.sessionId} · agent-statechart inspector`);
    // Its own subagent, one level further down.
    const checkerLink = page.getByTestId('subagent-session');
    await expect.poll(() => checkerLink.count()).toBe(1);
    expect(await checkerLink.getAttribute('data-session-id')).toBe(checker!.sessionId);
    await checkerLink.click();
    await page.waitForURL((address) => address.searchParams.get('session') === checker!.sessionId);
    await expect.poll(() => text('conversation')).toContain('checked: alpha holds');
    await expect
      .poll(() => page.getByTestId('session-parent').getAttribute('data-session-id'))
      .toBe(alpha!.sessionId);
    expect(await page.getByTestId('session-ancestor').getAttribute('data-session-id')).toBe('lead');
    expect(await text('session-subagents')).toBe('no subagent sessions');
    await screenshot(page, 'stored-session-tree-checker');

    // Back up to the lead, past the researcher: the lead's page again, every session a tab.
    await page.getByTestId('session-ancestor').click();
    await page.waitForURL((address) => address.searchParams.get('session') === 'lead');
    await expect.poll(() => selectedTab.getAttribute('data-agent-id')).toBe('stored:lead');
    await expect.poll(() => text('conversation')).toContain('Handing both out.');
    expect(await page.getByTestId('agent-tab').count()).toBe(3);

    // An id the store does not hold: a 404 that says so, the id shown as text.
    const unknown = await page.goto(
      new URL(`/?session=${encodeURIComponent('lead/<b>nope</b>')}`, url).href,
    );
    expect(unknown?.status()).toBe(404);
    expect(await page.locator('body').textContent()).toBe(
      `there is no session "lead/<b>nope</b>" in this inspector's session store\n`,
    );
    expect(await page.locator('b').count()).toBe(0);
    expect(errors).toEqual([]);

    inspect.interrupt();
    expect((await inspect.exited).code).toBe(0);
  });

  it('refuses an unknown session, and a workspace with no store, saying where it looked', async () => {
    const database = join(workspace, '.agent-statechart', 'sessions.db');
    const unknown = await runCli(['inspect', '--session', 'nope', '--workspace', workspace]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(`there is no session 'nope' in ${database}`);

    const empty = await mkdtemp(join(tmpdir(), 'no-store-'));
    try {
      const none = await runCli(['inspect', '--session', 'notes', '--workspace', empty]);
      expect(none.code).toBe(1);
      expect(none.stderr).toContain(
        `there is no session store at ${join(empty, '.agent-statechart', 'sessions.db')}`,
      );
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
