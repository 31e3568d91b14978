/**
 * `sessions show` on a compacted session: the live transcript keeps only the latest summary and
 * what came after it, but the log keeps everything, so the whole history is shown, each
 * compaction where it happened (why, how much it summarised, the summary), and the log says
 * which model call wrote a summary.
 */
import { expect, it } from 'vitest';
import { runSessionsCommand } from '../../src/cli/sessionsCommand.js';
import { cliChartConfig } from '../../src/cli/sessionConfig.js';
import {
  type AgentAction,
  type AgentEvent,
  type LlmResponse,
  SessionCore,
} from '../../src/index.js';
import { useTempStore } from '../support/tempStore.js';

const temp = useTempStore('sessions-compaction-');

/** An answer long enough (about 12,500 tokens) that a compaction keeps only the latest exchange. */
const long = (text: string) => `${text} ${'and so on '.repeat(5_000)}`;

const response = (text: string, inputTokens = 1_000): LlmResponse => ({
  message: { role: 'assistant', content: [{ type: 'text', text }] },
  stopReason: 'end_turn',
  usage: { input_tokens: inputTokens, output_tokens: 20 },
});

/** Feeds `event`, answering each model call with the next of `answers`; returns every action. */
async function feed(
  session: SessionCore,
  event: AgentEvent,
  answers: LlmResponse[],
): Promise<AgentAction[]> {
  const seen: AgentAction[] = [];
  let next: AgentEvent | undefined = event;
  while (next !== undefined) {
    const actions = await session.handleEvent(next);
    seen.push(...actions);
    next = undefined;
    if (actions.some((a) => a.type === 'SendLlmRequest' || a.type === 'SendCompactionRequest')) {
      await session.started({ effect: 'llm' });
      next = { type: 'LlmCompleted', response: answers.shift()! };
    }
  }
  return seen;
}

const input = (content: string): AgentEvent => ({
  type: 'UserInput',
  message: { role: 'user', content },
});

it('shows the whole history of a compacted session, and each compaction in it', async () => {
  // As the command line reads it back: the same chart configuration.
  const session = await SessionCore.open(temp.store, 's1', { config: cliChartConfig(undefined) });
  await feed(session, input('question 1'), [response(long('answer 1'))]);
  await feed(session, input('question 2'), [response(long('answer 2'))]);
  // The API counts the transcript past the threshold: the next request compacts first.
  await feed(session, input('question 3'), [response(long('answer 3'), 170_000)]);
  const auto = await feed(session, input('question 4'), [
    response('We went through questions 1 to 3.'),
    response(long('answer 4')),
  ]);
  expect(auto.map((action) => action.type)).toContain('Compacted');
  const manual = await feed(session, { type: 'Compact', instructions: 'Keep the numbers.' }, [
    response('Questions 1 to 4 were answered.\nThe numbers were 1, 2, 3 and 4.'),
  ]);
  expect(manual.map((action) => action.type)).toContain('Compacted');
  expect(session.core.context.messages).toHaveLength(2);

  const out: string[] = [];
  const code = await runSessionsCommand(['show', 's1', '--store', temp.path], {
    out: (line) => out.push(line),
    err: (line) => out.push(`err: ${line}`),
  });
  expect(code).toBe(0);
  const text = out.join('\n');
  expect(out).toContain(
    'transcript (8 messages in all, compacted 2 times: the model sees the latest summary and the 1 message after it)',
  );
  // Every message, the summarised ones included, numbered through the whole history.
  expect(out).toContain('    1  user       question 1');
  expect(text).toMatch(/^ {4}8 {2}assistant {2}"answer 4 and so on/m);
  // The first compaction came once question 4 was sent, before its request; the second on
  // request, after the answer.
  expect(text).toMatch(
    /^ {4}7 {2}user {7}question 4\n {7}── compacted \(auto, entry \d+\): 5 messages summarised, 2 kept; the summary:\n {10}We went through questions 1 to 3\.\n {4}8 {2}assistant/m,
  );
  expect(text).toMatch(
    /"answer 4 and so on [a-z ]+…\n {7}── compacted \(manual, entry \d+\): 3 messages summarised, 1 kept; the summary:\n {10}Questions 1 to 4 were answered\.\n {10}The numbers were 1, 2, 3 and 4\.$/m,
  );
  // The log keeps every event and says which calls wrote a summary.
  expect(text).toMatch(/UserInput {2}question 1$/m);
  expect(text).toMatch(/started {2}the model call {2}\(a compaction's summary\)$/m);
  expect(text).toMatch(
    /LlmCompleted {2}"We went through questions 1 to 3\." {2}\(compacted \(auto\): 5 messages summarised, 2 kept\)$/m,
  );
  expect(text).toMatch(/Compact {2}keep: Keep the numbers\.$/m);
});
