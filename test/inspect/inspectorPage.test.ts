/**
 * The offline inspector page in a real browser (Debian's Chromium through playwright-core),
 * watching real agents: createAgent against the local Messages API server, in git workspaces.
 * The tests share one page and run in order, as one session would. Screenshots land in
 * test-results/inspect/.
 */
import { rm, stat } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { createActor } from 'xstate';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { z } from 'zod';
import {
  type Agent,
  type AgentStateName,
  agentMachine,
  type CreateAgentOptions,
  createAgent,
  type PostToolUseAnswer,
  type PreToolUseAnswer,
  type StopAnswer,
  type ToolCall,
  type UserPromptSubmitAnswer,
} from '../../src/index.js';
import { type StartedInspectorServer, startInspectorServer } from '../../src/inspect/index.js';
import { overloaded, reply, type Script, startMessagesApiServer } from '../../src/testing/index.js';
import { captureDocsScreenshots } from '../../scripts/docsScreenshots.js';
import { gitWorkspace } from '../agent/harness.js';
import { stubbornWrite } from '../agent/stubbornWrite.js';
import {
  ARTIFACTS,
  findLogRow,
  launchChromium,
  litStates,
  recordLitStates,
  screenshot,
} from './browser.js';
import { AGENT_STATE_NAMES } from '../../src/index.js';
import { hookGate } from './hookGate.js';

const SEVEN_STATES: readonly AgentStateName[] = AGENT_STATE_NAMES;

const FINAL_ANSWER =
  'Done: notes.txt now holds the meeting notes, and the change is committed. ' +
  'Step back through the run with the arrows to see how it got there.';

const NOTES_SCRIPT: Script = [
  overloaded(),
  reply([
    { type: 'text', text: 'I will write the notes file.' },
    {
      type: 'tool_use',
      name: 'write_file',
      input: { path: 'notes.txt', content: 'Meeting notes\n- ship the inspector\n' },
    },
  ]),
  reply(FINAL_ANSWER),
];

/** What the model asks in the ask_user test: a choice, and several to pick from. */
const QUESTIONS = [
  {
    header: 'Database',
    question: 'Which database should the service use?',
    options: [
      { label: 'PostgreSQL', description: 'Managed, shared' },
      { label: 'SQLite', description: 'One file, embedded' },
    ],
  },
  {
    header: 'Features',
    question: 'Which features come first?',
    options: [{ label: 'Search' }, { label: 'Export' }, { label: 'Sharing' }],
    multiSelect: true,
  },
];

/** `null` when no Chromium was found: the tests are skipped (see test/support/chromiumSetup.ts). */
const chromiumPath = inject('chromiumPath');
let browser: Browser;
let inspector: StartedInspectorServer;
let page: Page;
let writer: Agent;
const cleanups: (() => Promise<unknown>)[] = [];

/** A real agent on the local Messages API server, in a fresh git workspace. */
async function startAgent(
  name: string,
  script: Script,
  options: CreateAgentOptions & { eventDelayMs?: number } = {},
): Promise<Agent> {
  const { eventDelayMs, ...agentOptions } = options;
  const [workspace, llm] = await Promise.all([
    gitWorkspace({ 'README.md': '# notes\n' }),
    startMessagesApiServer({ script, eventDelayMs: eventDelayMs ?? 0 }),
  ]);
  const agent = createAgent({
    workspace,
    inspect: inspector.observe({ name }),
    anthropic: { baseURL: llm.baseURL, apiKey: 'sk-test-secret-key' },
    retryDelayScale: 0.01,
    ...agentOptions,
  });
  cleanups.push(async () => {
    await agent.shutdown({ timeoutMs: 2_000 });
    await llm.close();
    await rm(workspace, { recursive: true, force: true });
  });
  return agent;
}

beforeAll(async () => {
  if (chromiumPath === null) return;
  [browser, inspector] = await Promise.all([launchChromium(chromiumPath), startInspectorServer()]);
  page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
});

afterAll(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
  await Promise.all([browser?.close(), inspector?.close()]);
});

const text = async (testId: string) => (await page.getByTestId(testId).textContent()) ?? '';
const viewedState = () => page.locator('body').getAttribute('data-view-state');
/** The page's view of `{ WaitingForUserInput: 'Ready' }`: every state the value is in. */
const READY = 'WaitingForUserInput WaitingForUserInput.Ready';
/** A model call: sized first (a transient state: compact first, or not), then streamed. */
const SIZING = 'CallingLlm CallingLlm.Sizing';
const STREAMING = 'CallingLlm CallingLlm.Streaming';
/** The states of the parallel `ExecutingTools`: the state, then each region and its state. */
function executing(
  approvals: 'Idle' | 'Waiting',
  questions: 'Idle' | 'Waiting',
  hooks: 'Idle' | 'Running' = 'Idle',
): string {
  return [
    'ExecutingTools',
    'ExecutingTools.Hooks',
    `ExecutingTools.Hooks.${hooks}`,
    'ExecutingTools.Approvals',
    `ExecutingTools.Approvals.${approvals}`,
    'ExecutingTools.Subagents',
    'ExecutingTools.Subagents.Idle',
    'ExecutingTools.Questions',
    `ExecutingTools.Questions.${questions}`,
  ].join(' ');
}
/** The page's view of `{ ProcessingLlmResponse: 'Deciding' }`, where a response is routed at once. */
const DECIDING = 'ProcessingLlmResponse ProcessingLlmResponse.Deciding';
/** Whether the chart lights the state at `path` (`data-state`). */
const isLit = async (path: string) =>
  /\bis-active\b/.test((await page.locator(`[data-state="${path}"]`).getAttribute('class')) ?? '');
describe.runIf(chromiumPath)('the inspector page', () => {
  it('loads offline, with every request on its own server, and draws the seven states', async () => {
    const foreign: string[] = [];
    const origin = new URL(inspector.url).origin;
    page.on('request', (request) => {
      if (!request.url().startsWith(origin)) foreign.push(request.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    writer = await startAgent('note writer', NOTES_SCRIPT, {
      eventDelayMs: 25,
      retryDelayScale: 3,
    });
    await page.goto(inspector.url);
    await page.locator('[data-state="WaitingForUserInput.Ready"].is-active').waitFor();
    await expect.poll(() => text('connection')).toBe('live');

    for (const state of SEVEN_STATES) {
      expect(await page.locator(`[data-state="${state}"] .state-name`).textContent()).toBe(state);
    }
    expect(await text('agent-tab')).toContain('note writer');
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('lights the active state live through a run that passes all seven states', async () => {
    await recordLitStates(page);
    let streamed = '';
    let shot: Promise<string> | undefined;
    let retryShot: Promise<string> | undefined;
    writer.on('retry', () => {
      retryShot ??= page
        .locator('[data-testid="retry"].shown')
        .waitFor()
        .then(() => screenshot(page, 'retry-countdown'));
    });
    writer.on('text', ({ text: delta }) => {
      streamed += delta;
      // Mid-way through the final answer every panel has something to show.
      if (shot === undefined && streamed.includes('committed')) shot = screenshot(page, 'live-run');
    });

    writer.send('Write the meeting notes to notes.txt');
    await writer.waitUntilIdle({ timeoutMs: 15_000 });
    await Promise.all([shot, retryShot]);
    await writer.shutdown();
    await page.locator('[data-state="ShuttingDown"].is-active').waitFor();
    expect(await text('state-name')).toBe('ShuttingDown');
    await screenshot(page, 'after-shutdown');

    // Transient states (CallingLlm's Sizing, ProcessingLlmResponse's Deciding) last no time:
    // they flash as passed through, the compound state around them with them.
    const lit = await litStates(page);
    const expected = [
      'CallingLlm',
      'Error',
      'CallingLlm',
      'ProcessingLlmResponse',
      'ExecutingTools',
      'PostToolsHook',
      'CallingLlm',
      'ProcessingLlmResponse',
      'WaitingForUserInput',
      'ShuttingDown',
    ];
    let matched = 0;
    for (const state of lit) if (state === expected[matched]) matched += 1;
    expect(matched, `lit in order: ${lit.join(' → ')}`).toBe(expected.length);
    // WaitingForUserInput lights with the state inside it where input is taken, CallingLlm with
    // Sizing then Streaming (nothing to compact here), ProcessingLlmResponse with the one where
    // it decides, ExecutingTools with its regions, none waiting for a person or a hook.
    expect(new Set(lit)).toEqual(
      new Set([
        ...SEVEN_STATES,
        'WaitingForUserInput.Ready',
        'CallingLlm.Sizing',
        'CallingLlm.Streaming',
        'ProcessingLlmResponse.Deciding',
        ...executing('Idle', 'Idle').split(' '),
      ]),
    );
  });

  it('logs every event with its payload, and shows the conversation with the tool call', async () => {
    for (const type of [
      'xstate.init',
      'UserInput',
      'LlmError',
      'RetryTimeoutFired',
      'LlmToolCallDelta',
      'LlmCompleted',
      'ToolCompleted',
      'PostToolsHookCompleted',
      'LlmTextDelta',
      'ShutdownRequested',
    ]) {
      expect(await findLogRow(page, type), type).toBeDefined();
    }
    const conversation = page.getByTestId('conversation');
    expect(await conversation.locator('.message.user').first().textContent()).toContain(
      'Write the meeting notes to notes.txt',
    );
    const card = conversation.locator('[data-tool-call]');
    expect(await card.locator('.name').textContent()).toBe('write_file');
    expect(await card.getAttribute('data-status')).toBe('done');
    expect(await card.locator('.result').textContent()).toContain('notes.txt');
    expect(await conversation.locator('.message.assistant').last().textContent()).toContain(
      FINAL_ANSWER,
    );

    await (await findLogRow(page, 'LlmError'))?.click();
    await expect.poll(() => text('payload')).toContain('"type": "LlmError"');
    const payload = await text('payload');
    expect(payload).toContain('"kind": "overloaded"');
    expect(payload).toContain('"retries": 1');
  });

  it('steps back and forth through the recorded steps', async () => {
    // Selecting LlmError (previous test) went back in time to the Error state.
    await expect.poll(() => viewedState()).toBe('Error');
    expect(await page.locator('[data-state="Error"].is-active').count()).toBe(1);
    expect(await page.locator('body.is-past').count()).toBe(1);
    expect(await text('retry')).toMatch(
      /^Retry scheduled after \d+ ms · attempt 2 of 3 · overloaded \(529\)$/,
    );
    await expect.poll(() => text('conversation-caption')).toBe('1 message');
    await screenshot(page, 'time-travel-error');

    await page.getByTestId('step-next').click();
    await expect.poll(() => viewedState()).toBe(SIZING);
    await page.getByTestId('step-next').click();
    await expect.poll(() => viewedState()).toBe(STREAMING);
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await expect.poll(() => viewedState()).toBe('Error');

    // The response has just arrived: the call is known but not started yet.
    await (await findLogRow(page, '→ ProcessingLlmResponse'))?.click();
    await expect.poll(() => viewedState()).toBe(DECIDING);
    await expect
      .poll(() => page.locator('[data-tool-call]').getAttribute('data-status'))
      .toBe('pending');

    // The step that entered ExecutingTools: the call is running.
    await (await findLogRow(page, '→ ExecutingTools'))?.click();
    await expect.poll(() => viewedState()).toBe(executing('Idle', 'Idle'));
    await expect
      .poll(() => page.locator('[data-tool-call]').getAttribute('data-status'))
      .toBe('running');

    await page.getByTestId('step-first').click();
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => text('conversation-caption')).toBe('0 messages');

    await page.getByTestId('go-live').click();
    await expect.poll(() => viewedState()).toBe('ShuttingDown');
    await expect.poll(() => page.locator('body.is-live').count()).toBe(1);
    await expect.poll(() => text('conversation-caption')).toBe('4 messages');
  });

  it('shows several agents at once, one tab each, with approval and failure statuses', async () => {
    const reviewer = await startAgent(
      'reviewer',
      [
        reply([{ type: 'tool_use', name: 'write_file', input: { path: 'x.txt', content: 'x' } }]),
        reply('Understood, I will not write it.'),
      ],
      { permissions: { mode: 'default' } },
    );
    const asked = new Promise<string>((resolve) =>
      reviewer.on('approvalRequest', ({ call }) => resolve(call.id)),
    );
    reviewer.send('Write x.txt');
    const callId = await asked;

    const tabs = page.getByTestId('agent-tab');
    await expect.poll(() => tabs.count()).toBe(2);
    await tabs.filter({ hasText: 'reviewer' }).click();
    await expect.poll(() => viewedState()).toBe(executing('Waiting', 'Idle'));
    const card = page.locator(`[data-tool-call="${callId}"]`);
    await expect.poll(() => card.getAttribute('data-status')).toBe('awaitingApproval');
    expect(await card.locator('.chip').textContent()).toBe('awaiting approval');
    expect(await text('state-name')).toBe(
      'ExecutingTools (Hooks.Idle, Approvals.Waiting, Subagents.Idle, Questions.Idle)',
    );
    expect(await text('facts')).toContain('waiting for approval of write_file');
    await screenshot(page, 'awaiting-approval');

    reviewer.deny(callId);
    await reviewer.waitUntilIdle({ timeoutMs: 5_000 });
    await expect.poll(() => card.getAttribute('data-status')).toBe('failed');
    expect(await card.locator('.result').textContent()).toContain('permission denied');

    await tabs.filter({ hasText: 'note writer' }).click();
    await expect.poll(() => viewedState()).toBe('ShuttingDown');
  });

  it('keeps up with thousands of events in a bounded DOM, and serves a late page the bounded history', async () => {
    // The chart with its placeholder actors, driven by hand: 6,400 streaming deltas in 8 turns.
    const actor = createActor(agentMachine, {
      input: {},
      inspect: inspector.observe({ name: 'long session' }),
    });
    let recorded = 0;
    const stopCounting = inspector.recorder.subscribe((change) => {
      if (change.type === 'step' && change.agentId === actor.sessionId) recorded += 1;
    });
    actor.start();
    const tabs = page.getByTestId('agent-tab');
    await expect.poll(() => tabs.count()).toBe(3);
    await tabs.filter({ hasText: 'long session' }).click();
    for (let turn = 0; turn < 8; turn += 1) {
      actor.send({ type: 'UserInput', message: { role: 'user', content: `question ${turn}` } });
      for (let batch = 0; batch < 4; batch += 1) {
        for (let delta = 0; delta < 200; delta += 1) {
          actor.send({ type: 'LlmTextDelta', content: `word${delta} ` });
        }
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      actor.send({
        type: 'LlmCompleted',
        response: {
          message: { role: 'assistant', content: `answer ${turn}` },
          stopReason: 'end_turn',
        },
      });
    }
    expect(recorded).toBeGreaterThan(6_400);
    await expect.poll(() => text('conversation-caption'), { timeout: 15_000 }).toBe('16 messages');
    const rows = await page.locator('[data-testid="event-log"] .row').count();
    const elements = await page.evaluate<number>('document.getElementsByTagName("*").length');
    await screenshot(page, 'long-session');
    expect(rows).toBeLessThan(80);
    expect(elements).toBeLessThan(3_000);

    // A page opened now gets the server's bounded history (the last maxSteps steps) at once.
    const late = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await late.goto(inspector.url);
    await late.getByTestId('agent-tab').filter({ hasText: 'long session' }).click();
    await expect
      .poll(() => late.getByTestId('step-position').textContent(), { timeout: 15_000 })
      .toMatch(/\/ 5,000 · live/);
    await late.keyboard.press('Home');
    await expect.poll(() => late.getByTestId('step-position').textContent()).toMatch(/^step 1 \//);
    await late.close();
    stopCounting();
    actor.stop();
  });

  it('lights WaitingForUserInput.SettlingCancelledCalls while a call an interrupt aborted still runs, then Ready', async () => {
    // A write that hears the abort but finishes anyway, once the test lets it.
    const stubborn = stubbornWrite();
    const settler = await startAgent(
      'settler',
      [
        reply([{ type: 'tool_use', name: 'stubborn_write', input: { path: 'a.txt' } }]),
        reply('Stopped, as asked.'),
      ],
      // A grace period longer than the test: the chart waits for the call itself.
      { tools: [stubborn.tool], permissions: { mode: 'bypassPermissions' }, toolGraceMs: 600_000 },
    );
    settler.send('Write a.txt');
    await stubborn.begun;
    settler.interrupt();
    expect(settler.stateValue).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });

    await page.getByTestId('agent-tab').filter({ hasText: 'settler' }).click();
    await expect
      .poll(() => viewedState())
      .toBe('WaitingForUserInput WaitingForUserInput.SettlingCancelledCalls');
    const settling = page.locator('[data-state="WaitingForUserInput.SettlingCancelledCalls"]');
    await expect.poll(() => settling.getAttribute('class')).toMatch(/\bis-active\b/);
    expect(await settling.locator('.state-name').textContent()).toBe('SettlingCancelledCalls');
    const card = page.locator('[data-tool-call]');
    await expect.poll(() => card.locator('.chip').textContent()).toBe('cancelling');
    await screenshot(page, 'settling-cancelled-calls');

    // The call reports how it really ended: its result is recorded and input is taken again.
    stubborn.finish();
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => settling.getAttribute('class')).not.toMatch(/\bis-active\b/);
    await expect.poll(() => card.getAttribute('data-status')).toBe('done');
    expect(await card.locator('.result').textContent()).toContain('wrote a.txt');
  });

  it('pictures the demo (`npm start`) for the docs: live while it streams, and stepped back to Error', async () => {
    // The capture `npm run docs:screenshots` makes for docs/, here into test-results/.
    const shots = await captureDocsScreenshots(browser, ARTIFACTS);
    expect(shots.live).toBe(STREAMING);
    expect(shots.timeTravel).toBe('Error');
    for (const path of shots.paths) expect((await stat(path)).size).toBeGreaterThan(50_000);
  }, 60_000);

  it("shows what the requests carry and the turn's structured answer", async () => {
    const judge = await startAgent(
      'judge',
      [reply([{ type: 'tool_use', name: 'final_answer', input: { verdict: 'approve' } }])],
      {
        model: 'claude-opus-4-5',
        maxTokens: 8192,
        request: { thinking: { type: 'enabled', budget_tokens: 2048 } },
        output: z.object({ verdict: z.enum(['approve', 'reject']) }),
      },
    );
    await judge.run('Review the change');
    await page.getByTestId('agent-tab').filter({ hasText: 'judge' }).click();
    await expect.poll(() => text('facts')).toContain('answer {"verdict":"approve"}');
    const facts = await text('facts');
    expect(facts).toContain('model claude-opus-4-5');
    expect(facts).toContain(`tools ${judge.context.config.tools.length}`);
    expect(facts).toContain('thinking 2,048 tokens');
  });

  it('lights Questions.Waiting beside Approvals.Idle while an ask_user call waits, and shows the questions, then the answers', async () => {
    const asker = await startAgent(
      'asker',
      [
        reply([
          { type: 'text', text: 'Two things first.' },
          { type: 'tool_use', name: 'ask_user', input: { questions: QUESTIONS } },
        ]),
        reply('SQLite it is; search and export come first.'),
      ],
      { askUser: true },
    );
    const asked = new Promise<string>((resolve) =>
      asker.on('question', ({ callId }) => resolve(callId)),
    );
    asker.send('Plan the service');
    const callId = await asked;

    await page.getByTestId('agent-tab').filter({ hasText: 'asker' }).click();
    await expect.poll(() => viewedState()).toBe(executing('Idle', 'Waiting'));
    for (const path of [
      'ExecutingTools',
      'ExecutingTools.Approvals.Idle',
      'ExecutingTools.Questions.Waiting',
    ]) {
      await expect.poll(() => isLit(path), { message: path }).toBe(true);
    }
    expect(await isLit('ExecutingTools.Questions.Idle')).toBe(false);
    expect(await isLit('ExecutingTools.Approvals.Waiting')).toBe(false);
    expect(await text('state-name')).toBe(
      'ExecutingTools (Hooks.Idle, Approvals.Idle, Subagents.Idle, Questions.Waiting)',
    );
    expect(await text('facts')).toContain('waiting for answers on Database, Features');
    // The log and the tab name only the region that left Idle; the status line names both.
    expect(
      await page.getByTestId('agent-tab').filter({ hasText: 'asker' }).textContent(),
    ).toContain('ExecutingTools (Questions.Waiting)');
    expect(await findLogRow(page, '→ ExecutingTools (Questions.Waiting)')).toBeDefined();

    // The call's card: the questions under their headers, with the choices offered.
    const card = page.locator(`[data-tool-call="${callId}"]`);
    await expect.poll(() => card.getAttribute('data-status')).toBe('awaitingAnswer');
    expect(await card.locator('.chip').textContent()).toBe('awaiting answer');
    const questions = card.getByTestId('questions').locator('.question');
    expect(await questions.count()).toBe(2);
    expect(await questions.locator('.question-header').allTextContents()).toEqual([
      'Database',
      'Features',
    ]);
    expect(await questions.first().locator('.question-text').textContent()).toBe(
      'Which database should the service use?',
    );
    expect(await questions.first().locator('.choice-label').allTextContents()).toEqual([
      'PostgreSQL',
      'SQLite',
    ]);
    expect(await questions.first().locator('.choice').first().textContent()).toContain(
      'Managed, shared',
    );
    expect(await questions.last().locator('.question-kind').textContent()).toBe(
      'several may be picked',
    );
    expect(await card.locator('.result').count()).toBe(0);
    await screenshot(page, 'awaiting-answer');

    // Answered: the answers, under their questions, are the call's result; the turn goes on.
    asker.answer(callId, ['SQLite', ['Search', 'Export']]);
    await asker.waitUntilIdle({ timeoutMs: 5_000 });
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => card.getAttribute('data-status')).toBe('done');
    const answer = (await card.locator('.result').textContent()) ?? '';
    expect(answer).toContain('[Database] Which database should the service use?\n→ SQLite');
    expect(answer).toContain('→ Search, Export');
    expect(await text('facts')).not.toContain('waiting for');
    await screenshot(page, 'answered');

    // Stepping back to the step before the answer shows the question open again, lit as it was.
    await (await findLogRow(page, 'UserAnswer'))?.click();
    await page.getByTestId('step-prev').click();
    await expect.poll(() => viewedState()).toBe(executing('Idle', 'Waiting'));
    await expect.poll(() => isLit('ExecutingTools.Questions.Waiting')).toBe(true);
    await expect.poll(() => card.getAttribute('data-status')).toBe('awaitingAnswer');
    expect(await card.locator('.result').count()).toBe(0);
    await page.getByTestId('go-live').click();
    await expect.poll(() => card.getAttribute('data-status')).toBe('done');
  });

  it('shows a call waiting for its preToolUse hook as "hook deciding" and for its postToolUse hook as "hook reviewing", Hooks.Running lit', async () => {
    const pre = hookGate<{ call: ToolCall }, PreToolUseAnswer>();
    const post = hookGate<{ call: ToolCall }, PostToolUseAnswer>();
    const hooked = await startAgent(
      'hooked tools',
      [
        reply([{ type: 'tool_use', name: 'write_file', input: { path: 'h.txt', content: 'h' } }]),
        reply('Written, and checked.'),
      ],
      {
        permissions: { mode: 'acceptEdits' },
        hooks: { preToolUse: pre.hook, postToolUse: post.hook },
      },
    );
    hooked.send('Write h.txt');
    const { call } = await pre.called(1);

    await page.getByTestId('agent-tab').filter({ hasText: 'hooked tools' }).click();
    await expect.poll(() => viewedState()).toBe(executing('Idle', 'Idle', 'Running'));
    await expect.poll(() => isLit('ExecutingTools.Hooks.Running')).toBe(true);
    expect(await isLit('ExecutingTools.Hooks.Idle')).toBe(false);
    const card = page.locator(`[data-tool-call="${call.id}"]`);
    await expect.poll(() => card.getAttribute('data-status')).toBe('preHook');
    expect(await card.locator('.chip').textContent()).toBe('hook deciding');
    expect(await text('facts')).toContain('waiting for the preToolUse hook on write_file');
    expect(await text('state-name')).toBe(
      'ExecutingTools (Hooks.Running, Approvals.Idle, Subagents.Idle, Questions.Idle)',
    );
    await screenshot(page, 'hook-deciding');

    // Allowed, the call runs; its result waits for the postToolUse hook.
    pre.answer({ decision: 'allow' });
    await post.called(1);
    await expect.poll(() => card.getAttribute('data-status')).toBe('postHook');
    expect(await card.locator('.chip').textContent()).toBe('hook reviewing');
    await expect
      .poll(() => text('facts'))
      .toContain('waiting for the postToolUse hook on write_file');
    expect(await isLit('ExecutingTools.Hooks.Running')).toBe(true);

    post.answer({ context: 'prettier found nothing to change' });
    await hooked.waitUntilIdle({ timeoutMs: 5_000 });
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => card.getAttribute('data-status')).toBe('done');
    expect(await text('facts')).not.toContain('waiting for');
  });

  it('lights WaitingForUserInput.CheckingPrompt while the userPromptSubmit hook decides, quotes the prompt, and logs the prompt it blocks with the reason', async () => {
    const prompts = hookGate<{ text: string }, UserPromptSubmitAnswer>();
    const gatekeeper = await startAgent('gatekeeper', [reply('Deployed on Monday.')], {
      hooks: { userPromptSubmit: prompts.hook },
    });
    const blocked =
      'deploy the release branch to production now, and tell the whole team once it is live';
    gatekeeper.send(blocked);
    expect((await prompts.called(1)).text).toBe(blocked);
    // A prompt sent meanwhile queues behind the one being checked.
    gatekeeper.send('deploy on Monday');

    await page.getByTestId('agent-tab').filter({ hasText: 'gatekeeper' }).click();
    await expect
      .poll(() => viewedState())
      .toBe('WaitingForUserInput WaitingForUserInput.CheckingPrompt');
    await expect.poll(() => isLit('WaitingForUserInput.CheckingPrompt')).toBe(true);
    expect(await isLit('WaitingForUserInput.Ready')).toBe(false);
    expect(await text('state-name')).toBe('WaitingForUserInput.CheckingPrompt');
    // The prompt is in no message yet: the status line quotes its start, the queue says it is
    // being checked rather than kept for the next turn.
    await expect
      .poll(() => text('facts'))
      .toContain('waiting for the userPromptSubmit hook on the prompt: deploy the release branch');
    const facts = await text('facts');
    expect(facts).toContain('…');
    expect(facts).not.toContain('once it is live');
    await expect
      .poll(() => text('queue'))
      .toMatch(
        /^the userPromptSubmit hook is checking: deploy the release branch to production now, [^—]+… — 1 queued for the next turn: deploy on Monday$/,
      );
    expect(await text('conversation-caption')).toBe('0 messages');
    await screenshot(page, 'checking-prompt');

    // Blocked: the prompt leaves without reaching the transcript. The conversation shows it
    // dropped, with the reason, where it came; its row in the log says so too.
    const reason = 'the userPromptSubmit hook blocked it: no deploys while the release is frozen';
    prompts.answer({ decision: 'block', reason: 'no deploys while the release is frozen' });
    expect((await prompts.called(2)).text).toBe('deploy on Monday');
    // The prompt behind it is checked now, and is no longer queued for later.
    await expect
      .poll(() => text('queue'))
      .toBe('the userPromptSubmit hook is checking: deploy on Monday');
    const dropped = page.getByTestId('dropped-prompt');
    expect(await dropped.count()).toBe(1);
    expect(await dropped.locator('.text').textContent()).toBe(blocked);
    expect(await dropped.locator('.reason').textContent()).toBe(reason);
    expect(await text('conversation-caption')).toBe('0 messages');
    const row = await findLogRow(page, 'prompt dropped');
    expect(row).toBeDefined();
    expect(await row!.locator('.type').textContent()).toBe('UserPromptSubmitDecision');
    expect(await row!.locator('.note').textContent()).toBe(`prompt dropped: ${reason}`);
    expect(await row!.getAttribute('title')).toContain(`"${blocked.slice(0, 40)}`);
    await row!.click();
    await expect.poll(() => text('payload')).toContain('"type": "PromptDropped"');
    expect(await text('payload')).toContain(`"content": "${blocked}"`);
    expect(await dropped.count()).toBe(1);
    await screenshot(page, 'prompt-dropped');
    // A step before it was dropped: not dropped yet, the prompt is being checked.
    await page.getByTestId('step-prev').click();
    await expect
      .poll(() => viewedState())
      .toBe('WaitingForUserInput WaitingForUserInput.CheckingPrompt');
    await expect.poll(() => dropped.count()).toBe(0);
    await page.getByTestId('go-live').click();
    await expect.poll(() => dropped.count()).toBe(1);

    // The prompt behind it goes through.
    prompts.answer();
    await gatekeeper.waitUntilIdle({ timeoutMs: 5_000 });
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => text('conversation-caption')).toBe('2 messages');
    // In the order they came: the dropped prompt, then the turn the next one started.
    expect(
      await page.getByTestId('conversation').locator('.message .text').allTextContents(),
    ).toEqual([blocked, 'deploy on Monday', 'Deployed on Monday.']);
    expect(await page.locator('.message.user:not(.dropped) .text').allTextContents()).toEqual([
      'deploy on Monday',
    ]);
    expect(await text('facts')).not.toContain('waiting for');
    expect(await page.getByTestId('queue').isVisible()).toBe(false);
  });

  it('lights ProcessingLlmResponse.CheckingStop, reached through Deciding, while the stop hook decides, and shows the turn going on', async () => {
    const stop = hookGate<{ text: string }, StopAnswer>();
    const finisher = await startAgent(
      'finisher',
      [reply('All done.'), reply('The tests pass now.')],
      { hooks: { stop: stop.hook } },
    );
    await page.getByTestId('agent-tab').filter({ hasText: 'finisher' }).click();
    await expect.poll(() => viewedState()).toBe(READY);
    await recordLitStates(page);
    finisher.send('Fix the build');
    expect((await stop.called(1)).text).toBe('All done.');

    await expect
      .poll(() => viewedState())
      .toBe('ProcessingLlmResponse ProcessingLlmResponse.CheckingStop');
    await expect.poll(() => isLit('ProcessingLlmResponse.CheckingStop')).toBe(true);
    expect(await isLit('ProcessingLlmResponse.Deciding')).toBe(false);
    expect(await isLit('ProcessingLlmResponse')).toBe(true);
    const lit = await litStates(page);
    expect(lit.indexOf('ProcessingLlmResponse.Deciding'), lit.join(' → ')).toBeGreaterThan(-1);
    expect(lit.indexOf('ProcessingLlmResponse.Deciding')).toBeLessThan(
      lit.indexOf('ProcessingLlmResponse.CheckingStop'),
    );
    expect(await text('state-name')).toBe('ProcessingLlmResponse.CheckingStop');
    expect(await text('facts')).toContain('waiting for the stop hook');
    expect(
      await page.getByTestId('agent-tab').filter({ hasText: 'finisher' }).textContent(),
    ).toContain('ProcessingLlmResponse.CheckingStop');
    expect(await findLogRow(page, '→ ProcessingLlmResponse.CheckingStop')).toBeDefined();
    await screenshot(page, 'checking-stop');

    // The hook has the turn go on: its reason is the model's next instruction; it is asked once.
    stop.answer({ decision: 'continue', reason: 'the tests still fail: run them' });
    await finisher.waitUntilIdle({ timeoutMs: 5_000 });
    await expect.poll(() => viewedState()).toBe(READY);
    await expect.poll(() => text('conversation-caption')).toBe('4 messages');
    const conversation = await text('conversation');
    expect(conversation).toContain('[stop hook] the tests still fail: run them');
    expect(conversation).toContain('The tests pass now.');
    expect(stop.calls).toHaveLength(1);
    expect(await text('facts')).not.toContain('waiting for');
  });
});
