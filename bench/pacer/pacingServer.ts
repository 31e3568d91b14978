/**
 * The pacing Messages API server, run as a process of its own so that serving the streams never
 * competes with the measured process for its event loop or its CPU time. It is the package's own
 * local server (src/testing): the exact Messages API event sequence, one SSE event per socket
 * write, `--event-delay-ms` between events. A request whose last message carries a tool result
 * gets the short second reply; any other gets the first (600 text deltas, then the tool call).
 *
 * Each stream starts after a pause of its own, spread evenly over one event interval, so N
 * streams started together do not stay in lockstep: a real service's streams arrive out of phase,
 * and N events landing in the same millisecond would measure the burst, not the per-event cost.
 *
 * Prints its base URL on the first line of stdout; stops on SIGTERM or when stdin closes.
 */
import { type MessagesRequestBody, startMessagesApiServer } from '../../src/testing/index.js';
import { firstReply, secondReply } from '../density/agentTurn.js';

const flag = process.argv.find((arg) => arg.startsWith('--event-delay-ms='));
const eventDelayMs = Number(flag?.split('=')[1]);
if (!Number.isFinite(eventDelayMs) || eventDelayMs < 0) {
  throw new Error('pacingServer: pass --event-delay-ms=<milliseconds between SSE events>');
}

/** The golden ratio's fractional part: successive multiples spread evenly over [0, 1). */
const SPREAD = 0.6180339887498949;

function answersToolResult(body: MessagesRequestBody): boolean {
  const last = body.messages[body.messages.length - 1];
  return Array.isArray(last?.content) && last.content.some((block) => block.type === 'tool_result');
}

const server = await startMessagesApiServer({
  // A subject whose event loop stalls for seconds must not find its connection closed under it.
  keepAliveTimeoutMs: 600_000,
  script: (body, turnIndex) => {
    const pacing = {
      eventDelayMs,
      responseDelayMs: Math.round(((turnIndex * SPREAD) % 1) * eventDelayMs),
    };
    return answersToolResult(body) ? secondReply(pacing) : firstReply(pacing);
  },
});

let stopping = false;
function stop(): void {
  if (stopping) return;
  stopping = true;
  if (server.problems.length > 0) {
    process.stderr.write(
      `pacingServer: ${server.problems.length} problem(s), first: ${server.problems[0]}\n`,
    );
  }
  void server.close().then(() => process.exit(0));
}
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
process.stdout.write(`${server.baseURL}\n`);
