import Anthropic, {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
  InternalServerError,
  RateLimitError,
} from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { classifyLlmError } from '../../../src/actors/llm/classifyLlmError.js';
import { retryAfterMs } from '../../../src/actors/llm/retryAfter.js';
import { withoutCredentials } from '../../support/noCredentials.js';

const body = (type: string, message: string) => ({
  type: 'error',
  error: { type, message },
});

describe('classifyLlmError', () => {
  it('reads retry-after from a rate limit error of the SDK', () => {
    const error = new RateLimitError(
      429,
      body('rate_limit_error', 'slow down'),
      undefined,
      new Headers({ 'retry-after': '3' }),
    );

    expect(classifyLlmError(error)).toEqual({
      kind: 'rate_limit',
      status: 429,
      retryAfterMs: 3000,
      message: error.message,
    });
  });

  it('keeps retry-after on an overloaded answer too', () => {
    const error = new InternalServerError(
      529,
      body('overloaded_error', 'Overloaded'),
      undefined,
      new Headers({ 'retry-after-ms': '250' }),
    );

    expect(classifyLlmError(error)).toMatchObject({
      kind: 'overloaded',
      status: 529,
      retryAfterMs: 250,
    });
  });

  it('classifies an error event without HTTP status by its error type', () => {
    // This is how the SDK reports an `error` event that arrives in the middle of a stream.
    const error = new APIError(
      undefined,
      body('overloaded_error', 'Overloaded'),
      undefined,
      new Headers(),
      'overloaded_error',
    );

    expect(classifyLlmError(error)).toEqual({
      kind: 'overloaded',
      message: error.message,
    });
    expect(error.message).toContain('Overloaded');
  });

  it.each([
    [408, 'timeout'],
    [402, 'auth'],
    [422, 'invalid_request'],
    [431, 'invalid_request'],
    [502, 'server'],
    [409, 'unknown'],
  ] as const)('classifies HTTP %i as %s', (status, kind) => {
    const error = APIError.generate(status, body('some_error', 'x'), undefined, new Headers());

    expect(classifyLlmError(error).kind).toBe(kind);
  });

  it('classifies SDK timeouts as timeout and SDK connection errors as network, with the cause in the message', () => {
    expect(classifyLlmError(new APIConnectionTimeoutError())).toEqual({
      kind: 'timeout',
      message: 'Request timed out.',
    });
    const cause = new TypeError('fetch failed', {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), {
        code: 'ECONNREFUSED',
      }),
    });

    expect(classifyLlmError(new APIConnectionError({ cause }))).toEqual({
      kind: 'network',
      message: 'Connection error. (cause: fetch failed; connect ECONNREFUSED 127.0.0.1:9)',
    });
  });

  it('classifies a body cut off by the socket (undici "terminated") as network', () => {
    const error = new TypeError('terminated', {
      cause: Object.assign(new Error('other side closed'), {
        code: 'UND_ERR_SOCKET',
      }),
    });

    expect(classifyLlmError(error)).toEqual({
      kind: 'network',
      message: 'terminated (cause: other side closed)',
    });
  });

  it('classifies a socket timeout as timeout', () => {
    const error = Object.assign(new Error('read ETIMEDOUT'), {
      code: 'ETIMEDOUT',
    });

    expect(classifyLlmError(error).kind).toBe('timeout');
  });

  it('classifies a missing credential as auth, which no retry can fix', async () => {
    // The SDK refuses to send without one: this is what it throws, not a copy of its message.
    withoutCredentials();
    const client = new Anthropic({ baseURL: 'http://127.0.0.1:9', maxRetries: 0 });
    const thrown: unknown = await client.messages
      .create({ model: 'claude', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(classifyLlmError(thrown)).toEqual({
      kind: 'auth',
      message: expect.stringMatching(/^Could not resolve authentication method\./) as unknown,
    });
  });

  it('does not call a deliberate abort a network failure', () => {
    expect(classifyLlmError(new APIUserAbortError()).kind).toBe('unknown');
  });

  it('classifies anything else as unknown, keeping its message', () => {
    expect(classifyLlmError(new RangeError('weird'))).toEqual({
      kind: 'unknown',
      message: 'weird',
    });
    expect(classifyLlmError('just a string')).toEqual({
      kind: 'unknown',
      message: 'just a string',
    });
    expect(classifyLlmError({ odd: true })).toEqual({
      kind: 'unknown',
      message: '{"odd":true}',
    });
    expect(classifyLlmError(undefined)).toEqual({
      kind: 'unknown',
      message: 'undefined',
    });
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-10-21T07:28:00Z');

  it('reads delay-seconds, fractions included', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }), now)).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0.25' }), now)).toBe(250);
  });

  it('reads an HTTP date relative to now, and a past date as 0', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:28:05 GMT' }), now)).toBe(
      5000,
    );
    expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 21 Oct 2026 07:27:00 GMT' }), now)).toBe(
      0,
    );
  });

  it('prefers retry-after-ms', () => {
    expect(retryAfterMs(new Headers({ 'retry-after': '9', 'retry-after-ms': '120.5' }), now)).toBe(
      121,
    );
  });

  it('ignores missing and unreadable values', () => {
    expect(retryAfterMs(new Headers(), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterMs(new Headers({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(
      retryAfterMs(new Headers({ 'retry-after-ms': '3 apples', 'retry-after': '1' }), now),
    ).toBe(1000);
  });
});
