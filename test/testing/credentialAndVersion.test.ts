import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '../../src/testing/index.js';
import { API_HEADERS, post, sdkClient, serversClosedAfterEach } from './serverHarness.js';

const start = serversClosedAfterEach();

const request = {
  model: 'claude-test-model',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

function headersWithout(name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(API_HEADERS).filter(([key]) => key !== name));
}

describe('a request without a credential', () => {
  it('gets 401 authentication_error in the API error envelope, and takes no turn', async () => {
    const server = await start({ script: [reply('for the second request')] });

    const refused = await post(server, undefined, { headers: headersWithout('x-api-key') });

    expect(refused.status).toBe(401);
    expect(refused.headers.get('content-type')).toBe('application/json');
    expect(await refused.json()).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'x-api-key header is required' },
      request_id: refused.headers.get('request-id'),
    });
    expect(refused.headers.get('request-id')).toMatch(/^req_/);
    expect(server.requests).toEqual([]);
    expect(server.problems).toEqual([
      expect.stringMatching(/^401 authentication_error: .*x-api-key/),
    ]);
    const answered = await post(server);
    expect(answered.status).toBe(200);
    expect(server.requests.map((r) => r.turnIndex)).toEqual([0]);
  });

  it.each([
    ['an empty x-api-key', { 'x-api-key': '' }],
    ['an authorization header that is not a bearer token', { authorization: 'Basic dGVzdA==' }],
    ['an empty bearer token', { authorization: 'Bearer ' }],
  ])('gets 401 with %s', async (_case, credential) => {
    const server = await start({ script: [reply('unused')] });

    const refused = await post(server, undefined, {
      headers: { ...headersWithout('x-api-key'), ...credential },
    });

    expect(refused.status).toBe(401);
    expect(server.turnsServed).toBe(0);
  });

  it('is accepted with authorization: Bearer, which is how the SDK sends its apiKey', async () => {
    const server = await start({ script: [reply('Hello')] });

    const message = await sdkClient(server, { apiKey: 'sk-test' }).messages.create(request);

    expect(message.content).toEqual([{ type: 'text', text: 'Hello' }]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-test');
    expect(server.problems).toEqual([]);
  });

  it('surfaces in the SDK as an AuthenticationError', async () => {
    const server = await start({ script: [reply('unused')] });
    // `null` removes the header the SDK would send.
    const client = sdkClient(server, { defaultHeaders: { Authorization: null } });

    const error: unknown = await client.messages.create(request).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect((error as InstanceType<typeof Anthropic.AuthenticationError>).requestID).toMatch(
      /^req_/,
    );
  });
});

describe('a request without a usable anthropic-version', () => {
  it('gets 400 invalid_request_error when the header is missing', async () => {
    const server = await start({ script: [reply('unused')] });

    const refused = await post(server, undefined, { headers: headersWithout('anthropic-version') });

    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'anthropic-version: header is required' },
      request_id: refused.headers.get('request-id'),
    });
    expect(server.turnsServed).toBe(0);
    expect(server.problems).toEqual([
      expect.stringMatching(/^400 invalid_request_error: .*anthropic-version/),
    ]);
  });

  it('gets 400 naming the value when it is not a version', async () => {
    const server = await start({ script: [reply('unused')] });

    const refused = await post(server, undefined, {
      headers: { ...API_HEADERS, 'anthropic-version': 'latest' },
    });

    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toBe(
      'anthropic-version: "latest" is not a valid version',
    );
  });

  it('surfaces in the SDK as a BadRequestError', async () => {
    const server = await start({ script: [reply('unused')] });
    const client = sdkClient(server, { defaultHeaders: { 'anthropic-version': null } });

    const error: unknown = await client.messages.create(request).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
  });

  it('is checked after the credential, as a missing key is the first thing to fix', async () => {
    const server = await start({ script: [reply('unused')] });

    const refused = await post(server, undefined, {
      headers: { 'content-type': 'application/json' },
    });

    expect(refused.status).toBe(401);
  });
});
