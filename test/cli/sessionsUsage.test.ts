/**
 * `sessions show` tells what a stored session's model calls used and cost: the session's sums,
 * and each turn's, as the chart reckoned them (the log replayed through pure mode).
 */
import { expect, it } from 'vitest';
import { runSessionsCommand } from '../../src/cli/sessionsCommand.js';
import { type AgentEvent, SessionCore } from '../../src/index.js';
import { useTempStore } from '../support/tempStore.js';

const temp = useTempStore('sessions-usage-');

const answer = (text: string, input_tokens: number, output_tokens: number): AgentEvent => ({
  type: 'LlmCompleted',
  response: {
    message: { role: 'assistant', content: [{ type: 'text', text }] },
    stopReason: 'end_turn',
    model: 'claude-haiku-4-5-20251001',
    usage: { input_tokens, output_tokens, cache_read_input_tokens: 1_000_000 },
  },
});

it('shows the session’s usage and cost, and each turn’s', async () => {
  const session = await SessionCore.open(temp.store, 's1');
  for (const [index, tokens] of [
    [1_000, 100],
    [2_000, 300],
  ].entries()) {
    await session.handleEvent({
      type: 'UserInput',
      message: { role: 'user', content: `question ${index + 1}` },
    });
    await session.handleEvent(answer(`answer ${index + 1}`, tokens[0]!, tokens[1]!));
  }
  const out: string[] = [];
  const code = await runSessionsCommand(['show', 's1', '--store', temp.path], {
    out: (line) => out.push(line),
    err: (line) => out.push(`err: ${line}`),
  });
  expect(code).toBe(0);
  // Haiku 4.5: $1 in, $5 out, $0.10 a cached read, per million tokens.
  expect(out).toContain(
    '  usage     2 calls · 3,000 in / 400 out · cache 0 written / 2,000,000 read · $0.2050',
  );
  expect(out).toContain('usage by turn (2 turns with model calls)');
  expect(out).toContain(
    '    1  1 call · 1,000 in / 100 out · cache 0 written / 1,000,000 read · $0.1015',
  );
  expect(out).toContain(
    '    2  1 call · 2,000 in / 300 out · cache 0 written / 1,000,000 read · $0.1035',
  );
});
