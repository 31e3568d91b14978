/**
 * The `anthropic-ratelimit-*` response headers, from token buckets like the API's own: each limit
 * is a bucket that holds a minute's worth and refills continuously, every answer takes from it,
 * and the headers report what is left and when the bucket will be full again.
 */

import { AgentStatechartError } from '../machine/index.js';

/**
 * An organisation's limits per minute, as the API enforces them for one model class.
 *
 * @example
 * const limits: RateLimits = { requestsPerMinute: 50, inputTokensPerMinute: 30_000, outputTokensPerMinute: 8_000 };
 */
export interface RateLimits {
  requestsPerMinute: number;
  inputTokensPerMinute: number;
  outputTokensPerMinute: number;
}

/**
 * Limits generous enough that no test runs out, in the range of the API's higher usage tiers.
 *
 * @example
 * new RateLimiter({ ...DEFAULT_RATE_LIMITS, requestsPerMinute: 5 });
 */
export const DEFAULT_RATE_LIMITS: Readonly<RateLimits> = {
  requestsPerMinute: 4_000,
  inputTokensPerMinute: 2_000_000,
  outputTokensPerMinute: 400_000,
};

const MINUTE_MS = 60_000;

/**
 * The limits to use: each one given, else its default. A limit that is not a positive number is
 * an {@link AgentStatechartError} `INVALID_OPTION`.
 *
 * @example
 * resolveRateLimits({ requestsPerMinute: 50 }).outputTokensPerMinute; // 400000
 */
export function resolveRateLimits(given: Partial<RateLimits> = {}): RateLimits {
  const limits = { ...DEFAULT_RATE_LIMITS };
  for (const name of Object.keys(limits) as (keyof RateLimits)[]) {
    const value: unknown = given[name] ?? limits[name];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `rateLimits.${name} must be a positive number per minute; got ${String(value)}`,
      );
    }
    limits[name] = value;
  }
  return limits;
}

/**
 * What one answer costs: one request and the tokens of its usage. Cache reads do not count
 * against the input limit, as with the API.
 *
 * @example
 * const cost: RequestCost = { inputTokens: 120, outputTokens: 30 };
 */
export interface RequestCost {
  inputTokens: number;
  outputTokens: number;
}

/**
 * The rate-limit state of one server. The server never refuses on its own account: a bucket that
 * runs dry reports 0 remaining, and a scripted 429 empties the request bucket.
 *
 * @example
 * const limiter = new RateLimiter(DEFAULT_RATE_LIMITS, Date.now());
 * const headers = limiter.charge({ inputTokens: 12, outputTokens: 5 }, Date.now());
 * headers['anthropic-ratelimit-requests-remaining']; // '3999'
 */
export class RateLimiter {
  private readonly requests: TokenBucket;
  private readonly inputTokens: TokenBucket;
  private readonly outputTokens: TokenBucket;

  constructor(limits: RateLimits, now: number) {
    this.requests = new TokenBucket(limits.requestsPerMinute, now);
    this.inputTokens = new TokenBucket(limits.inputTokensPerMinute, now);
    this.outputTokens = new TokenBucket(limits.outputTokensPerMinute, now);
  }

  /**
   * Takes one request and `cost` from the buckets and returns the headers that report them.
   * `exhausted` empties the request bucket first, as behind a 429.
   */
  charge(cost: RequestCost, now: number, exhausted = false): Record<string, string> {
    if (exhausted) this.requests.take(Number.POSITIVE_INFINITY, now);
    else this.requests.take(1, now);
    this.inputTokens.take(cost.inputTokens, now);
    this.outputTokens.take(cost.outputTokens, now);
    // The tokens-* headers show whichever token limit is the tighter one right now.
    const tighter =
      this.outputTokens.remaining() < this.inputTokens.remaining()
        ? this.outputTokens
        : this.inputTokens;
    return {
      ...this.requests.headers('requests', now, false),
      ...tighter.headers('tokens', now, true),
      ...this.inputTokens.headers('input-tokens', now, true),
      ...this.outputTokens.headers('output-tokens', now, true),
    };
  }
}

class TokenBucket {
  private level: number;
  private updatedAt: number;

  constructor(
    private readonly capacity: number,
    now: number,
  ) {
    this.level = capacity;
    this.updatedAt = now;
  }

  take(amount: number, now: number): void {
    this.refill(now);
    this.level = Math.max(0, this.level - amount);
  }

  remaining(): number {
    return Math.floor(this.level);
  }

  headers(name: string, now: number, roundToThousands: boolean): Record<string, string> {
    this.refill(now);
    const remaining = roundToThousands
      ? Math.round(this.remaining() / 1000) * 1000
      : this.remaining();
    const fullAt = now + ((this.capacity - this.level) * MINUTE_MS) / this.capacity;
    return {
      [`anthropic-ratelimit-${name}-limit`]: String(this.capacity),
      [`anthropic-ratelimit-${name}-remaining`]: String(remaining),
      [`anthropic-ratelimit-${name}-reset`]: rfc3339Seconds(fullAt),
    };
  }

  private refill(now: number): void {
    const elapsed = Math.max(0, now - this.updatedAt);
    this.level = Math.min(this.capacity, this.level + (elapsed * this.capacity) / MINUTE_MS);
    this.updatedAt = now;
  }
}

/** RFC 3339 in whole seconds, rounded up so the moment named is never early: `2026-01-01T00:00:01Z`. */
function rfc3339Seconds(ms: number): string {
  return new Date(Math.ceil(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}
