/**
 * The failover test's model, in a process of its own (so killing workers never touches it): a
 * local Messages API whose answers follow the conversation. A user turn `turn <k> of <session>`
 * gets text and two tool calls, `look` (read-only) and `bump` (mutating, keyed by session and
 * turn); once their results are in, the turn ends with `done <session>:<k>`. A session that starts
 * with `hold <key>` gets one call of `hold` (slow, read-only), then `held <key>`. One that starts
 * with `ask <key>` gets an `ask_user` call (which colour, red or blue) beside a call of `hold`,
 * then `chose <answer> for <key>`. One that starts with `verify <key>` answers `unverified <key>`
 * (which the workers' stop hook sends back), then `verified <key>`. One that starts with
 * `delegate <key>` hands the task `research <key>` to the subagent `researcher` (call id
 * `toolu_task_<key>`), then answers `Done: <the task's result>`. The researcher (told apart by
 * its system prompt) calls `hold` with `sub-<key>`, then `bump` with `sub-<key>`, then answers
 * `researched <key> after <bump's result>`. Prints the base URL.
 *
 * @example
 * spawn(process.execPath, ['--import', 'tsx', 'test/workers/scriptedModelMain.ts']);
 */
import { reply, startMessagesApiServer } from '../../src/testing/index.js';
import { systemText, textWithResults } from '../support/agentRequests.js';

const LONG_STORY = 'Once upon a time '.repeat(200).slice(0, 2_000);

/** The question an `ask <key>` session is asked. */
function colourQuestion(key: string) {
  return {
    header: 'Colour',
    question: `Which colour for ${key}?`,
    options: [{ label: 'red' }, { label: 'blue' }],
  };
}

const server = await startMessagesApiServer({
  keepAliveTimeoutMs: 120_000,
  eventDelayMs: 3,
  script: (request) => {
    const first = request.messages[0]?.content;
    const research = typeof first === 'string' ? /^research (\S+)$/.exec(first) : null;
    if (research && systemText(request.system).includes('You are the researcher.')) {
      const key = research[1]!;
      if (request.messages.length === 1) {
        return reply([{ type: 'tool_use', name: 'hold', input: { key: `sub-${key}` } }]);
      }
      if (request.messages.length === 3) {
        return reply([{ type: 'tool_use', name: 'bump', input: { key: `sub-${key}` } }]);
      }
      const seen = textWithResults(request.messages.at(-1));
      return reply(`researched ${key} after ${seen}`);
    }
    const delegate = typeof first === 'string' ? /^delegate (\S+)$/.exec(first) : null;
    if (delegate) {
      const key = delegate[1]!;
      if (request.messages.length === 1) {
        return reply([
          { type: 'text', text: `Handing ${key} out.` },
          {
            type: 'tool_use',
            id: `toolu_task_${key}`,
            name: 'task',
            input: { agent: 'researcher', prompt: `research ${key}` },
          },
        ]);
      }
      return reply(`Done: ${textWithResults(request.messages.at(-1))}`);
    }
    const hold = typeof first === 'string' ? /^hold (\S+)$/.exec(first) : null;
    if (hold) {
      return request.messages.length === 1
        ? reply([{ type: 'tool_use', name: 'hold', input: { key: hold[1]! } }])
        : reply(`held ${hold[1]}`);
    }
    const ask = typeof first === 'string' ? /^ask (\S+)$/.exec(first) : null;
    if (ask) {
      const key = ask[1]!;
      if (request.messages.length === 1) {
        return reply([
          { type: 'tool_use', name: 'ask_user', input: { questions: [colourQuestion(key)] } },
          { type: 'tool_use', name: 'hold', input: { key } },
        ]);
      }
      // The answer is in the ask_user call's result: `→ <answer>`.
      const answer = /→ (\w+)/.exec(JSON.stringify(request.messages.at(-1)?.content))?.[1];
      return reply(`chose ${answer ?? 'nothing'} for ${key}`);
    }
    const verify = typeof first === 'string' ? /^verify (\S+)$/.exec(first) : null;
    if (verify) {
      return reply(`${request.messages.length === 1 ? 'unverified' : 'verified'} ${verify[1]!}`);
    }
    // 2,000 characters in 500 deltas, as fast as the server can send them.
    if (first === 'write at length') {
      return reply(LONG_STORY, { stopReason: 'max_tokens', textChunkSize: 4, eventDelayMs: 0 });
    }
    const turn = [...request.messages]
      .reverse()
      .map((message) => (typeof message.content === 'string' ? message.content : ''))
      .find((text) => text.startsWith('turn '));
    const key = /^turn (\d+) of (\S+)$/.exec(turn ?? '');
    const id = key ? `${key[2]}:${key[1]}` : 'unknown';
    const last = request.messages.at(-1);
    if (typeof last?.content === 'string') {
      return reply([
        { type: 'text', text: `Working on ${id}.` },
        { type: 'tool_use', name: 'look', input: { key: id } },
        { type: 'tool_use', name: 'bump', input: { key: id } },
      ]);
    }
    return reply(`done ${id}`);
  },
});
process.stdout.write(`${server.baseURL}\n`);
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
