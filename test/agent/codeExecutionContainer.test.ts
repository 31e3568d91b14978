/**
 * Actor mode against the local Messages API server: the container a reply names goes back to
 * the server in the next request's `container`, through the real SDK.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../../src/testing/index.js';
import { sessionsClosedAfterEach } from './harness.js';

const startSession = sessionsClosedAfterEach();

describe('a code execution container in actor mode', () => {
  it('is passed back with the next request', async () => {
    const container = { id: 'container_011CZ', expires_at: '2026-07-01T12:00:00Z' };
    const session = await startSession([reply('I ran the code.', { container }), reply('Again.')]);
    const { agent, server } = session;
    agent.send('Run it.');
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    agent.send('Run it again.');
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    const bodies = server.requests.map((request) => request.body);
    expect(bodies[0]).not.toHaveProperty('container');
    expect(bodies[1]?.container).toBe('container_011CZ');
    expect(agent.context.containerId).toBe('container_011CZ');
  });
});
