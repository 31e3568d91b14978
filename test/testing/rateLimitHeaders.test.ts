import { describe, expect, it } from 'vitest';
import { AgentStatechartError } from '../../src/machine/agentStatechartError.js';
import { overloaded, rateLimited, reply, startMessagesApiServer } from '../../src/testing/index.js';
import { post, serversClosedAfterEach, streamingBody } from './serverHarness.js';

const start = serversClosedAfterEach();

const LIMITS = ['requests', 'tokens', 'input-tokens', 'output-tokens'] as const;
const RFC_3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

function rateLimit(response: Response, name: (typeof LIMITS)[number]) {
  const header = (part: string) => response.headers.get(`anthropic-ratelimit-${name}-${part}`);
  const reset = header('reset') ?? '';
  return {
    limit: Number(header('limit')),
    remaining: Number(header('remaining')),
    reset,
    resetInMs: Date.parse(reset) - Date.now(),
  };
}

describe('anthropic-ratelimit-* headers', () => {
  it.each([
    ['a streamed answer', reply('Hi'), streamingBody],
    ['a whole answer', reply('Hi'), { ...streamingBody, stream: false }],
    ['a scripted error', overloaded(), streamingBody],
  ])(
    'come with %s: limit, remaining and an RFC 3339 reset for each limit',
    async (_case, turn, payload) => {
      const server = await start({ script: [turn] });

      const response = await post(server, payload);
      await response.arrayBuffer();

      for (const name of LIMITS) {
        const { limit, remaining, reset } = rateLimit(response, name);
        expect(limit, name).toBeGreaterThan(0);
        expect(remaining, name).toBeLessThanOrEqual(limit);
        expect(reset, name).toMatch(RFC_3339_SECONDS);
      }
      expect(rateLimit(response, 'requests')).toMatchObject({ limit: 4000, remaining: 3999 });
      expect(rateLimit(response, 'input-tokens').limit).toBe(2_000_000);
      expect(rateLimit(response, 'output-tokens').limit).toBe(400_000);
    },
  );

  it('count down with each request and refill over a minute', async () => {
    const server = await start({
      script: () => reply('Hi'),
      rateLimits: { requestsPerMinute: 10 },
    });

    const remaining: number[] = [];
    for (let i = 0; i < 3; i++) {
      const response = await post(server);
      await response.arrayBuffer();
      remaining.push(rateLimit(response, 'requests').remaining);
      // One request refills in six seconds: the bucket is full again 6 s per request taken.
      const { resetInMs } = rateLimit(response, 'requests');
      expect(resetInMs).toBeGreaterThan((i + 1) * 6000 - 2000);
      expect(resetInMs).toBeLessThanOrEqual((i + 1) * 6000 + 1000);
    }

    expect(remaining).toEqual([9, 8, 7]);
  });

  it('take the usage of the answer, rounded to thousands, and name the tighter token limit in tokens-*', async () => {
    const server = await start({
      script: [
        reply('Hi', {
          usage: {
            input_tokens: 30_400,
            cache_creation_input_tokens: 9_000,
            cache_read_input_tokens: 50_000,
            output_tokens: 20_000,
          },
        }),
      ],
      rateLimits: { inputTokensPerMinute: 100_000, outputTokensPerMinute: 50_000 },
    });

    const response = await post(server);
    await response.arrayBuffer();

    // Cache reads do not count against the input limit: 100,000 − 30,400 − 9,000 = 60,600.
    expect(rateLimit(response, 'input-tokens')).toMatchObject({
      limit: 100_000,
      remaining: 61_000,
    });
    expect(rateLimit(response, 'output-tokens')).toMatchObject({
      limit: 50_000,
      remaining: 30_000,
    });
    expect(rateLimit(response, 'tokens')).toMatchObject({ limit: 50_000, remaining: 30_000 });
  });

  it('come with a scripted 429 beside its retry-after, with no requests remaining', async () => {
    const server = await start({ script: [rateLimited({ retryAfterSeconds: 4 }), reply('Hi')] });

    const limited = await post(server);
    await limited.arrayBuffer();

    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('4');
    expect(rateLimit(limited, 'requests')).toMatchObject({ limit: 4000, remaining: 0 });
    expect(rateLimit(limited, 'requests').resetInMs).toBeGreaterThan(55_000);
    const next = await post(server);
    await next.arrayBuffer();
    expect(next.status).toBe(200);
    expect(rateLimit(next, 'requests').remaining).toBeLessThan(10);
  });

  it('are absent from refusals of requests without a credential', async () => {
    const server = await start({ script: [reply('unused')] });

    const refused = await post(server, undefined, {
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    });
    await refused.arrayBuffer();

    expect(refused.status).toBe(401);
    expect(refused.headers.get('anthropic-ratelimit-requests-limit')).toBeNull();
  });

  it('use limits that must be positive numbers', async () => {
    const starting = startMessagesApiServer({ script: [], rateLimits: { requestsPerMinute: 0 } });

    await expect(starting).rejects.toThrow(AgentStatechartError);
    await expect(starting).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: 'rateLimits.requestsPerMinute must be a positive number per minute; got 0',
    });
  });
});
