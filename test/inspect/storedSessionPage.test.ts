/**
 * A stored session in the inspector page, in a real browser (Debian's Chromium through
 * playwright-core): `agent-statechart run --session` stores a turn in the workspace's SQLite
 * file, `agent-statechart inspect --session` (another process) replays its log into the page,
 * and the page steps back and forth through it — then follows a new run that appends to it. And
 * a session stored in-process whose model asked a question the user has not answered yet.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createAgent, createMemorySessionStore } from '../../src/index.js';
import { inspectStoredSession, startInspectorServer } from '../../src/inspect/index.js';
import { reply, startMessagesApiServer } from '../../src/testing/index.js';
import { gitWorkspace } from '../agent/harness.js';
import { runCli, startCli } from '../cli/cliProcess.js';
import { findLogRow, launchChromium, screenshot } from './browser.js';

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
    await expect.poll(() => viewedState()).toBe('CallingLlm');
    await expect.poll(() => text('conversation-caption')).toBe('1 message');

    // The step that entered ExecutingTools: the stored call is running there.
    await (await findLogRow(page, '→ ExecutingTools'))?.click();
    await expect
      .poll(() => viewedState())
      .toBe(
        'ExecutingTools ExecutingTools.Hooks ExecutingTools.Hooks.Idle ExecutingTools.Approvals ExecutingTools.Approvals.Idle ExecutingTools.Questions ExecutingTools.Questions.Idle',
      );
    await page.locator('[data-state="ExecutingTools"].is-active').waitFor();
    await expect.poll(() => card.getAttribute('data-status')).toBe('running');
    await page.keyboard.press('ArrowRight');
    await expect.poll(() => viewedState()).toBe('PostToolsHook');
    await expect.poll(() => card.getAttribute('data-status')).toBe('done');
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
        'ExecutingTools ExecutingTools.Hooks ExecutingTools.Hooks.Idle ExecutingTools.Approvals ExecutingTools.Approvals.Idle ExecutingTools.Questions ExecutingTools.Questions.Waiting',
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
