/**
 * Compaction in actor mode, through the real SDK against the local Messages API server: a long
 * session compacts on its own before a request would pass the threshold (the summary request
 * forbids tools and drops thinking; the next request starts with the summary and is small
 * again), `agent.compact()` compacts between turns, the `preCompact` hook vetoes or adds
 * instructions, an interrupt during a compaction leaves the transcript as it was, and a failed
 * summary call lets the request go out whole.
 */
import { describe, expect, it } from 'vitest';
import {
  type Agent,
  type AgentNotifications,
  AgentStatechartError,
  findTranscriptViolations,
  type Message,
  SUMMARY_HEADING,
} from '../../src/index.js';
import {
  internalServerError,
  type MessagesRequestBody,
  type RecordedRequest,
  reply,
  type ScriptedTurn,
  type ScriptFunction,
} from '../../src/testing/index.js';
import { asksForSummary, textOf } from '../support/compactionRequests.js';
import { useScriptedAgents } from './scriptedAgents.js';

const scripted = useScriptedAgents('compaction-');

/** A small window, so a dozen turns of long prompts fill it. */
const SMALL_WINDOW = { contextWindow: 2_000, threshold: 0.5, keepRecentTokens: 200 } as const;
const THRESHOLD_TOKENS = SMALL_WINDOW.contextWindow * SMALL_WINDOW.threshold;

/** A prompt of about a hundred tokens. */
function longPrompt(step: number): string {
  return `Step ${step}: ${'please keep this detail in mind. '.repeat(12)}`;
}

/** The request's size as the server counts it (about four characters a token). */
function tokensOf(body: MessagesRequestBody): number {
  return Math.ceil(JSON.stringify([body.system ?? '', body.messages]).length / 4);
}

/** The summary request's instructions: the last text of its last message. */
function summaryPromptOf(request: RecordedRequest | undefined): string {
  const content = request?.body.messages.at(-1)?.content;
  if (!Array.isArray(content)) return '';
  const texts = content.filter((block) => block.type === 'text');
  return (texts.at(-1) as { text?: string } | undefined)?.text ?? '';
}

/**
 * A model that answers each prompt briefly and each summary request with `summary(n)`, `n`
 * counting summary requests from 1.
 */
function summarisingModel(summary: (count: number) => ScriptedTurn): ScriptFunction {
  let summaries = 0;
  return (request) => {
    if (asksForSummary(request)) return summary(++summaries);
    return reply(`Noted: ${textOf(request.messages.at(-1)?.content).slice(0, 12)}`);
  };
}

/** What an agent says about compactions (and the text it shows), as it says it. */
function heard(agent: Agent) {
  const notes = {
    compacting: [] as AgentNotifications['compacting'][],
    compacted: [] as AgentNotifications['compacted'][],
    skipped: [] as AgentNotifications['compactionSkipped'][],
    text: [] as string[],
    errors: [] as string[],
    llmStarts: 0,
  };
  agent.on('compacting', (note) => notes.compacting.push(note));
  agent.on('compacted', (note) => notes.compacted.push(note));
  agent.on('compactionSkipped', (note) => notes.skipped.push(note));
  agent.on('text', ({ text }) => notes.text.push(text));
  agent.on('error', ({ message }) => notes.errors.push(message));
  agent.on('llmStart', () => (notes.llmStarts += 1));
  return notes;
}

/** Runs `count` turns of long prompts, from step `from`. */
async function longSession(agent: Agent, count: number) {
  for (let step = 0; step < count; step++) await agent.run(longPrompt(step));
}

describe('automatic compaction in createAgent', () => {
  it('summarises the older part before a request would pass the threshold: no tools, no thinking, nothing shown; the next request starts with the summary', async () => {
    const agent = await scripted.start(
      summarisingModel((count) => reply(`SUMMARY-${count}: twelve long steps, all noted.`)),
      {
        compaction: SMALL_WINDOW,
        request: { thinking: { type: 'enabled', budget_tokens: 1_024 } },
      },
    );
    const notes = heard(agent);
    await longSession(agent, 14);

    const requests = scripted.server().requests;
    const summaryAt = requests.findIndex((request) => asksForSummary(request.body));
    expect(summaryAt).toBeGreaterThan(0);
    const summaryRequest = requests[summaryAt]!.body as MessagesRequestBody &
      Record<string, unknown>;
    expect(summaryRequest.tool_choice).toEqual({ type: 'none' });
    expect(summaryRequest.thinking).toBeUndefined();
    // The same tools as every call, so the prompt cache the earlier calls wrote still reads.
    expect(summaryRequest.tools?.map((tool) => tool.name)).toEqual(['look_up']);
    expect(summaryPromptOf(requests[summaryAt])).toContain('write a summary');
    // The other requests keep their thinking.
    expect((requests[0]!.body as Record<string, unknown>).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 1_024,
    });

    // The request it came before: the summary first, then the recent messages, under the threshold.
    const after = requests[summaryAt + 1]!.body;
    expect(asksForSummary(after)).toBe(false);
    expect(after.messages[0]?.role).toBe('user');
    expect(textOf(after.messages[0]?.content)).toBe(
      `${SUMMARY_HEADING}\n\nSUMMARY-1: twelve long steps, all noted.`,
    );
    expect(tokensOf(after)).toBeLessThan(THRESHOLD_TOKENS);
    expect(tokensOf(requests[summaryAt - 1]!.body)).toBeGreaterThan(tokensOf(after));
    expect(after.messages.length).toBeLessThan(requests[summaryAt - 1]!.body.messages.length);
    // No request of the session went past the context window.
    for (const request of requests) {
      if (!asksForSummary(request.body)) {
        expect(tokensOf(request.body)).toBeLessThan(SMALL_WINDOW.contextWindow);
      }
    }

    // Listeners were told, and never shown the summary as text or told of its call as a turn's.
    expect(notes.compacting[0]).toEqual({ trigger: 'auto' });
    expect(notes.compacted[0]).toMatchObject({
      trigger: 'auto',
      summary: 'SUMMARY-1: twelve long steps, all noted.',
    });
    const first = notes.compacted[0]!;
    expect(first.summarised).toBeGreaterThanOrEqual(2);
    expect(first.kept).toBe(after.messages.length - 1);
    expect(notes.text.join('')).not.toContain('SUMMARY');
    const summaryCalls = requests.filter((request) => asksForSummary(request.body)).length;
    expect(notes.llmStarts).toBe(requests.length - summaryCalls);
    expect(notes.compacted).toHaveLength(summaryCalls);

    expect(agent.context.window.compactions).toBe(summaryCalls);
    expect(textOf(agent.context.messages[0]?.content)).toContain(SUMMARY_HEADING);
    expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
    // The summary call is paid for like any call.
    expect(agent.usage.session.calls).toBe(requests.length);
  });

  it('lets the request go out whole when the summary call fails, and says so', async () => {
    const agent = await scripted.start(
      summarisingModel(() => internalServerError('the summariser is down')),
      { compaction: SMALL_WINDOW },
    );
    const notes = heard(agent);
    await longSession(agent, 10);

    const requests = scripted.server().requests;
    const failedAt = requests.findIndex((request) => asksForSummary(request.body));
    expect(failedAt).toBeGreaterThan(0);
    // Not retried: the very next request is the turn's own, with every message.
    const whole = requests[failedAt + 1]!.body;
    expect(asksForSummary(whole)).toBe(false);
    const prompts = whole.messages
      .filter((message) => message.role === 'user')
      .map((message) => textOf(message.content));
    expect(prompts).toEqual(prompts.map((_, step) => longPrompt(step)));
    expect(whole.messages).toHaveLength(prompts.length * 2 - 1);
    expect(notes.compacted).toEqual([]);
    expect(notes.skipped[0]).toMatchObject({ trigger: 'auto' });
    expect(notes.skipped[0]!.reason).toContain('the summary call failed');
    expect(notes.errors.some((message) => message.includes('the request goes out whole'))).toBe(
      true,
    );
    expect(agent.context.window.compactions).toBe(0);
    expect(textOf(agent.context.messages[0]?.content)).toBe(longPrompt(0));
    expect(agent.context.messages.at(-1)).toMatchObject({ role: 'assistant' });
    expect(findTranscriptViolations(agent.context.messages)).toEqual([]);
  });

  it('lets the preCompact hook veto it: no summary is asked for, the request goes out whole', async () => {
    const asked: unknown[] = [];
    const agent = await scripted.start(
      summarisingModel(() => reply('never asked')),
      {
        compaction: SMALL_WINDOW,
        hooks: {
          preCompact: (input) => {
            asked.push(input);
            return { decision: 'block', reason: 'keep everything' };
          },
        },
      },
    );
    const notes = heard(agent);
    await longSession(agent, 10);
    expect(scripted.server().requests.some((request) => asksForSummary(request.body))).toBe(false);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked[0]).toEqual({
      trigger: 'auto',
      summarised: expect.any(Number) as unknown,
      instructions: [],
    });
    expect(notes.skipped[0]).toEqual({
      trigger: 'auto',
      reason: 'the preCompact hook blocked it: keep everything',
    });
    expect(agent.context.messages).toHaveLength(20);
  });

  it('leaves the transcript as it was when an interrupt comes during the summary call', async () => {
    const agent = await scripted.start(
      summarisingModel(() =>
        reply('A summary that takes its time to arrive, word by word.', { eventDelayMs: 100 }),
      ),
      { compaction: SMALL_WINDOW },
    );
    const notes = heard(agent);
    // Long prompts until one starts a compaction.
    let before: Message[] = [];
    for (let step = 0; notes.compacting.length === 0 && step < 20; step++) {
      before = agent.context.messages;
      agent.send(longPrompt(step));
      await expect
        .poll(() => notes.compacting.length > 0 || agent.state === 'WaitingForUserInput')
        .toBe(true);
      if (notes.compacting.length === 0) await agent.waitUntilIdle({ timeoutMs: 10_000 });
    }
    expect(agent.stateValue).toEqual({ CallingLlm: 'Compacting' });
    agent.interrupt();
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    // The prompt that started the turn stays; nothing was summarised.
    expect(agent.context.messages.slice(0, -1)).toEqual(before);
    expect(agent.context.messages.at(-1)?.role).toBe('user');
    expect(agent.context.window).toMatchObject({ compactions: 0, compacting: null });
    expect(notes.compacted).toEqual([]);
    expect(notes.text.join('')).not.toContain('A summary');
  });
});

describe('agent.compact()', () => {
  it('compacts between turns with the instructions given; the next turn starts from the summary', async () => {
    // Nothing but the latest exchange is kept as it was.
    const agent = await scripted.start(
      summarisingModel(() => reply('The user noted three steps.')),
      {
        compaction: { keepRecentTokens: 0 },
      },
    );
    const notes = heard(agent);
    for (const step of [1, 2, 3]) await agent.run(`step ${step}`);
    const outcome = await agent.compact('Keep the word PELICAN.');
    expect(outcome).toEqual({
      status: 'compacted',
      summary: 'The user noted three steps.',
      summarised: 5,
      kept: 1,
    });
    expect(notes.compacting).toEqual([{ trigger: 'manual' }]);
    expect(notes.compacted).toEqual([
      { trigger: 'manual', summary: 'The user noted three steps.', summarised: 5, kept: 1 },
    ]);
    const summaryRequest = scripted.server().requests.at(-1);
    expect(asksForSummary(summaryRequest!.body)).toBe(true);
    expect(summaryPromptOf(summaryRequest)).toContain('Also: Keep the word PELICAN.');
    expect(agent.context.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'text', text: `${SUMMARY_HEADING}\n\nThe user noted three steps.` }],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Noted: step 3' }] },
    ]);

    await expect(agent.run('step 4')).resolves.toBe('Noted: step 4');
    const next = scripted.server().requests.at(-1)!.body;
    expect(next.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(textOf(next.messages[0]?.content)).toContain('The user noted three steps.');
  });

  it('keeps the agent from being idle until it ends', async () => {
    const agent = await scripted.start(
      summarisingModel(() => reply('A summary that takes a while.', { eventDelayMs: 20 })),
    );
    for (const step of [1, 2]) await agent.run(`step ${step}`);
    const ended = agent.compact();
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(agent.context.window).toMatchObject({ compactions: 1, compacting: null });
    await expect(ended).resolves.toMatchObject({ status: 'compacted' });
  });

  it('says there is nothing to compact in a session of one exchange, and asks the model nothing', async () => {
    const agent = await scripted.start(summarisingModel(() => reply('never asked')));
    await agent.run('hello');
    await expect(agent.compact()).resolves.toEqual({
      status: 'skipped',
      reason: 'there is nothing to summarise yet: the latest exchange always stays as it is',
    });
    expect(scripted.server().requests).toHaveLength(1);
  });

  it('rejects while a turn runs, and changes nothing', async () => {
    const agent = await scripted.start([
      reply('one'),
      reply('two'),
      reply('slow three', { eventDelayMs: 50 }),
    ]);
    await agent.run('one');
    await agent.run('two');
    agent.send('three');
    const refused = agent.compact();
    await expect(refused).rejects.toBeInstanceOf(AgentStatechartError);
    await expect(refused).rejects.toMatchObject({
      code: 'EVENT_NOT_ACCEPTED',
      message: expect.stringContaining('only while it is idle') as string,
    });
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(agent.context.messages).toHaveLength(6);
    expect(agent.context.window.compactions).toBe(0);
  });

  it('runs the preCompact hook: a veto skips it, instructions reach the summary request', async () => {
    const asked: unknown[] = [];
    const agent = await scripted.start(
      summarisingModel(() => reply('Summary.')),
      {
        hooks: {
          preCompact: (input) => {
            asked.push(input);
            return input.instructions.includes('veto')
              ? { decision: 'block', reason: 'not now' }
              : { instructions: 'Keep the colour TEAL.' };
          },
        },
      },
    );
    for (const step of [1, 2]) await agent.run(`step ${step}`);
    const before = agent.context.messages;
    await expect(agent.compact('veto')).resolves.toEqual({
      status: 'skipped',
      reason: 'the preCompact hook blocked it: not now',
    });
    expect(agent.context.messages).toEqual(before);
    expect(scripted.server().requests).toHaveLength(2);

    await expect(agent.compact('Keep the step numbers.')).resolves.toMatchObject({
      status: 'compacted',
      summarised: 3,
    });
    expect(asked).toEqual([
      { trigger: 'manual', summarised: 3, instructions: ['veto'] },
      { trigger: 'manual', summarised: 3, instructions: ['Keep the step numbers.'] },
    ]);
    const prompt = summaryPromptOf(scripted.server().requests.at(-1));
    expect(prompt).toContain('Also: Keep the step numbers.');
    expect(prompt).toContain('Also: Keep the colour TEAL.');
  });

  it('is interrupted: the summary call is abandoned, the transcript as it was', async () => {
    const agent = await scripted.start(
      summarisingModel(() =>
        reply('A slow summary, word by word, at length.', { eventDelayMs: 100 }),
      ),
    );
    for (const step of [1, 2]) await agent.run(`step ${step}`);
    const before = agent.context.messages;
    const ended = agent.compact();
    await expect.poll(() => agent.stateValue).toEqual({ WaitingForUserInput: 'Compacting' });
    agent.interrupt();
    await expect(ended).resolves.toEqual({
      status: 'skipped',
      reason: 'it was interrupted',
    });
    expect(agent.context.messages).toEqual(before);
    expect(agent.context.window).toMatchObject({ compactions: 0, compacting: null });
    // The agent goes on as before.
    await expect(agent.run('step 3')).resolves.toBe('Noted: step 3');
    expect(scripted.server().requests.at(-1)!.body.messages).toHaveLength(5);
  });

  it('in a stored session closed during the summary call, asks for the summary again when reopened', async () => {
    const options = { store: scripted.temp.store, sessionId: 'compact-1' } as const;
    let summaries = 0;
    const first = await scripted.start((request) => {
      if (!asksForSummary(request)) {
        return reply(`Noted: ${textOf(request.messages.at(-1)?.content).slice(0, 12)}`);
      }
      summaries += 1;
      // The first summary never ends in time: its agent is closed while it streams.
      return summaries === 1
        ? reply('An endless summary.', { eventDelayMs: 5_000 })
        : reply('Summary, asked again.');
    }, options);
    for (const step of [1, 2]) await first.run(`step ${step}`);
    const ended = first.compact();
    await expect.poll(() => summaries).toBe(1);
    expect(first.stateValue).toEqual({ WaitingForUserInput: 'Compacting' });
    await first.recorded();
    await first.shutdown();
    await expect(ended).resolves.toMatchObject({ status: 'skipped' });

    const second = scripted.open(options);
    const compacted = new Promise<AgentNotifications['compacted']>((resolve) =>
      second.on('compacted', resolve),
    );
    await second.ready;
    await expect(compacted).resolves.toMatchObject({
      trigger: 'manual',
      summary: 'Summary, asked again.',
    });
    await second.waitUntilIdle({ timeoutMs: 10_000 });
    expect(summaries).toBe(2);
    expect(textOf(second.context.messages[0]?.content)).toBe(
      `${SUMMARY_HEADING}\n\nSummary, asked again.`,
    );
    await second.shutdown();
  });
});
