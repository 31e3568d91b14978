/**
 * The inspector server over HTTP: who may read it, what it serves, and its Server-Sent Events feed
 * (history first, batches after, resuming after the last id a page saw).
 */
import { request as httpRequest } from 'node:http';
import { Script } from 'node:vm';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor } from 'xstate';
import { agentMachine } from '../../src/index.js';
import { inspectorScript } from '../../src/inspect/assets/inspectorScript.js';
import { inspectorStyles } from '../../src/inspect/assets/inspectorStyles.js';
import {
  type AgentHistory,
  createInspectorServer,
  type StartedInspectorServer,
  type RecordedStep,
  startInspectorServer,
} from '../../src/inspect/index.js';
import { AgentStatechartError } from '../../src/index.js';
import { AGENT_STATE_NAMES } from '../../src/index.js';

const TOKEN = 'a-long-enough-test-token';

let server: StartedInspectorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A raw GET, so the Host header can be anything. */
function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

interface SseEvent {
  event: string;
  id: string | undefined;
  data: unknown;
}

/** Reads an SSE stream into `events` until `close()`. */
function openSse(url: string, headers: Record<string, string> = {}) {
  const events: SseEvent[] = [];
  const controller = new AbortController();
  const done = fetch(url, { headers, signal: controller.signal })
    .then(async (response) => {
      const reader = response.body?.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const chunk = await reader?.read();
        if (chunk === undefined || chunk.done) return;
        buffer += decoder.decode(chunk.value as Uint8Array, { stream: true });
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map(
            frame
              .split('\n')
              .filter((line) => !line.startsWith(':') && line.includes(': '))
              .map((line) => [
                line.slice(0, line.indexOf(': ')),
                line.slice(line.indexOf(': ') + 2),
              ]),
          );
          const event = fields.get('event');
          if (event === undefined) continue;
          events.push({
            event,
            id: fields.get('id'),
            data: JSON.parse(fields.get('data') ?? 'null'),
          });
        }
      }
    })
    .catch((error: unknown) => {
      if (!controller.signal.aborted) throw error;
    });
  return {
    events,
    async close() {
      controller.abort();
      await done;
    },
  };
}

const lastId = (events: SseEvent[]) => events.filter((event) => event.id !== undefined).at(-1)?.id;
const stepsIn = (events: SseEvent[]): RecordedStep[] =>
  events.flatMap((event) =>
    event.event === 'steps'
      ? (event.data as { items: { step: RecordedStep }[] }).items.map((item) => item.step)
      : [],
  );

describe('startInspectorServer', () => {
  it('listens on 127.0.0.1 by default and serves the page and its assets, nothing external', async () => {
    server = await startInspectorServer();
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await get(server.url);
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    expect(page.body).toContain('<script src="/assets/inspector.js"></script>');
    for (const asset of [page.body, inspectorScript, inspectorStyles]) {
      expect(asset).not.toMatch(/https?:\/\/|\/\/cdn|@import|url\(/);
    }
    expect((await get(new URL('/assets/inspector.js', server.url).href)).body).toBe(
      inspectorScript,
    );
    expect((await get(new URL('/nowhere', server.url).href)).status).toBe(404);
  });

  it('ships a page script that parses', () => {
    expect(() => new Script(inspectorScript)).not.toThrow();
  });

  it('refuses to listen beyond this machine without a token', async () => {
    await expect(startInspectorServer({ host: '0.0.0.0' })).rejects.toThrow(AgentStatechartError);
    await expect(startInspectorServer({ host: '0.0.0.0' })).rejects.toMatchObject({
      code: 'UNSAFE_BIND',
    });
    await expect(startInspectorServer({ token: 'short' })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
    });
  });

  it('answers 401 to every request without its token', async () => {
    server = await startInspectorServer({ host: '0.0.0.0', token: TOKEN });
    const port = new URL(server.url).port;
    expect(server.url).toBe(`http://0.0.0.0:${port}/?token=${TOKEN}`);
    const base = `http://127.0.0.1:${port}`;
    for (const path of [
      '/',
      '/assets/inspector.js',
      '/events',
      '/charts/agent.svg',
      '/api/agents',
    ]) {
      expect((await get(`${base}${path}`)).status, path).toBe(401);
      expect((await get(`${base}${path}?token=wrong-token-of-some-length`)).status, path).toBe(401);
    }
    const page = await get(`${base}/?token=${TOKEN}`);
    expect(page.status).toBe(200);
    // The page asks for its assets with the token too.
    expect(page.body).toContain(`/assets/inspector.js?token=${TOKEN}`);
    expect((await get(`${base}/api/agents`, { Authorization: `Bearer ${TOKEN}` })).status).toBe(
      200,
    );
  });

  it('rejects requests addressed to another host name (DNS rebinding)', async () => {
    server = await startInspectorServer();
    expect((await get(server.url, { Host: 'attacker.example:80' })).status).toBe(403);
    expect((await get(server.url, { Host: `localhost:${new URL(server.url).port}` })).status).toBe(
      200,
    );
  });

  it('draws each machine with the diagram renderer', async () => {
    server = await startInspectorServer();
    const actor = createActor(agentMachine, { input: {}, inspect: server.observer }).start();
    const chart = await get(new URL('/charts/agent.svg', server.url).href);
    expect(chart.status).toBe(200);
    expect(chart.headers['content-type']).toContain('image/svg+xml');
    for (const state of AGENT_STATE_NAMES) {
      expect(chart.body).toContain(`data-state="${state}"`);
    }
    expect((await get(new URL('/charts/unknown.svg', server.url).href)).status).toBe(404);
    actor.stop();
  });

  it('streams history, then batched steps, and resumes after the last id a page saw', async () => {
    server = await startInspectorServer();
    const actor = createActor(agentMachine, {
      input: {},
      inspect: server.observe({ name: 'a' }),
    }).start();
    actor.send({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
    const url = new URL('/events', server.url).href;

    const first = openSse(url);
    await expect
      .poll(() => first.events.map((event) => event.event))
      .toEqual(['hello', 'agent', 'synced']);
    const history = first.events[1]?.data as AgentHistory;
    expect(history.summary).toMatchObject({ name: 'a', value: { CallingLlm: 'Streaming' } });
    expect(history.steps.map((step) => step.value)).toEqual([
      { WaitingForUserInput: 'Ready' },
      // Sizing, a transient state, decides at once that the request streams without compacting.
      { CallingLlm: 'Sizing' },
      { CallingLlm: 'Streaming' },
    ]);

    for (let i = 0; i < 20; i += 1) actor.send({ type: 'LlmTextDelta', content: `${i}` });
    await expect.poll(() => stepsIn(first.events).length).toBe(20);
    // Deltas sent together arrive together, in one batch.
    expect(first.events.filter((event) => event.event === 'steps').length).toBeLessThan(5);
    const seen = lastId(first.events);
    await first.close();

    actor.send({ type: 'LlmTextDelta', content: 'missed' });
    const resumed = openSse(url, { 'Last-Event-ID': seen ?? '' });
    await expect
      .poll(() => resumed.events.map((event) => event.event))
      .toEqual(['hello', 'steps', 'synced']);
    expect(stepsIn(resumed.events).map((step) => step.patch?.extend?.streamingText)).toEqual([
      'missed',
    ]);
    await resumed.close();

    // An id from another server process cannot be resumed: the page gets everything.
    const foreign = openSse(url, { 'Last-Event-ID': 'another:3' });
    await expect
      .poll(() => foreign.events.map((event) => event.event))
      .toEqual(['hello', 'agent', 'synced']);
    await foreign.close();
    actor.stop();
  });
});

describe('createInspectorServer', () => {
  it('records at once and listens in the background, for code that creates agents synchronously', async () => {
    const inspector = createInspectorServer();
    const actor = createActor(agentMachine, { input: {}, inspect: inspector.observer }).start();
    expect(inspector.url).toBeUndefined();
    expect(inspector.recorder.agents()).toHaveLength(1);
    const url = await inspector.ready;
    expect(inspector.url).toBe(url);
    expect((await get(new URL('/api/agents', url).href)).body).toContain('"name":"agent 1"');
    actor.stop();
    await inspector.close();
  });

  it('reports a port it cannot take as data, never as an unhandled rejection', async () => {
    server = await startInspectorServer();
    const errors: unknown[] = [];
    const taken = createInspectorServer({
      port: Number(new URL(server.url).port),
      onError: (error) => errors.push(error),
    });
    await expect(taken.ready).rejects.toMatchObject({ code: 'LISTEN_FAILED' });
    expect(String(errors[0])).toMatch(/cannot listen on 127\.0\.0\.1:\d+: .*EADDRINUSE/);
    await taken.close();
    // Nobody awaiting `ready` is fine too.
    const ignored = createInspectorServer({
      port: Number(new URL(server.url).port),
      onError: () => undefined,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await ignored.close();
  });

  it('refuses an unsafe address at once', () => {
    expect(() => createInspectorServer({ host: '::' })).toThrow(/without a token/);
  });
});
