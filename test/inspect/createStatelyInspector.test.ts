/**
 * Stately's inspector: a real agent run streams through the relay started with it to a
 * WebSocket client standing in for the page that shows Stately's UI; the relay listens on this
 * machine only, on a port of its own, and refuses other sites' pages.
 */
import { createHash } from 'node:crypto';
import { get } from 'node:http';
import { createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createActor } from 'xstate';
import { agentMachine } from '../../src/index.js';
import { importOptionalPeer } from '../../src/persistence/importOptionalPeer.js';
import { createStatelyInspector, type StatelyInspector } from '../../src/inspect/index.js';
import { AgentStatechartError } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { type Session, startSession } from '../agent/harness.js';

const SECRET = 'sk-ant-api03-THIS-MUST-NOT-LEAVE';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

interface Received {
  type: string;
  name?: string;
  definition?: string;
  event?: { type?: string };
  snapshot?: { value?: unknown; status?: string };
}

let stately: StatelyInspector | undefined;
let session: Session | undefined;
let client: WebSocket | undefined;
afterEach(async () => {
  client?.close();
  await session?.close();
  await stately?.stop();
  [stately, session, client] = [undefined, undefined, undefined];
});

describe('createStatelyInspector', () => {
  it('streams a real agent run through its relay, sanitised', async () => {
    stately = await createStatelyInspector({ relay: {} });
    expect(stately.relayUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(stately.url).toBe(stately.relayUrl!.replace('http:', 'ws:'));

    // The relay forwards what one client sends to every other: this one plays Stately's UI.
    const raw: string[] = [];
    client = await connect(stately.url);
    client.on('message', (data: Buffer) => raw.push(data.toString('utf8')));

    session = await startSession(
      [
        reply([
          { type: 'text', text: 'Saving it.' },
          {
            type: 'tool_use',
            name: 'write_file',
            input: { path: 'big.txt', content: 'x'.repeat(10_000), api_key: SECRET },
          },
        ]),
        reply('Saved.'),
      ],
      { inspect: stately.observer },
    );
    session.agent.send(`Save a big file; my key is in the tool call, not here.`);
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    await session.agent.shutdown();

    const received = (): Received[] => raw.map((text) => JSON.parse(text) as Received);
    await expect
      .poll(() => received().some((m) => m.snapshot?.value === 'ShuttingDown'), { timeout: 5_000 })
      .toBe(true);
    const messages = received();
    const types = new Set(messages.map((message) => message.type));
    expect(types).toEqual(new Set(['@xstate.actor', '@xstate.event', '@xstate.snapshot']));

    const root = messages.find(
      (m) => m.type === '@xstate.actor' && m.definition?.includes('"agent"'),
    );
    // The definition Stately draws the chart from arrives whole.
    for (const state of ['WaitingForUserInput', 'CallingLlm', 'ExecutingTools', 'ShuttingDown']) {
      expect(root?.definition).toContain(`"${state}"`);
    }
    const events = messages.filter((m) => m.type === '@xstate.event').map((m) => m.event?.type);
    expect(events).toEqual(expect.arrayContaining(['UserInput', 'LlmCompleted', 'ToolCompleted']));
    const values = messages
      .filter((m) => m.type === '@xstate.snapshot')
      .map((m) => m.snapshot?.value);
    expect(values).toEqual(
      expect.arrayContaining([
        { CallingLlm: 'Streaming' },
        {
          ExecutingTools: {
            Hooks: 'Idle',
            Approvals: 'Idle',
            Subagents: 'Idle',
            Questions: 'Idle',
          },
        },
        'ShuttingDown',
      ]),
    );

    const all = raw.join('\n');
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain('test-key');
    expect(all).toContain('"api_key":"[redacted]"');
    expect(all).not.toMatch(/x{4001}/);
    expect(all).toMatch(/x+… \[cut [\d,]+ chars\]/);
    // Token counts are numbers, not credentials: they pass.
    expect(all).toMatch(/"input_tokens":\d+/);
  });

  it('stops promptly even when the relay was never reachable', async () => {
    const errors: unknown[] = [];
    stately = await createStatelyInspector({
      url: `ws://127.0.0.1:${await freePort()}`,
      onError: (error) => errors.push(error),
    });
    const actor = createActor(agentMachine, { input: {}, inspect: stately.observer }).start();
    await expect.poll(() => errors.length).toBe(1);
    actor.stop();
    const started = Date.now();
    await stately.stop();
    // Stately's own client would retry for five seconds.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain('cannot reach the Stately inspector relay');
  });
});

describe("createStatelyInspector's relay", () => {
  it('listens on this machine only, on a port of its own: two start side by side', async () => {
    const [first, second] = await Promise.all([
      createStatelyInspector({ relay: {} }),
      createStatelyInspector({ relay: {} }),
    ]);
    try {
      const ports = [first, second].map((one) => Number(new URL(one.relayUrl!).port));
      expect(new Set(ports).size).toBe(2);
      expect(ports).not.toContain(8080);
      // Reached through another interface of this machine, nothing answers.
      const outward = Object.values(networkInterfaces())
        .flat()
        .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
      if (outward !== undefined) {
        await expect(connect(`ws://${outward}:${ports[0]}`)).rejects.toMatchObject({
          code: 'ECONNREFUSED',
        });
      }
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  });

  it("serves the page that frames Stately's UI, running its own script only", async () => {
    stately = await createStatelyInspector({ relay: {} });
    const response = await fetch(stately.relayUrl!);
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain('<iframe id="stately" src="https://stately.ai/inspect"');
    const policy = response.headers.get('content-security-policy') ?? '';
    // The CSP names the hash of the inline script, or the browser would not run it.
    const script = /<script>([\s\S]*)<\/script>/.exec(page)?.[1] ?? '';
    const hash = createHash('sha256').update(script).digest('base64');
    expect(policy).toContain(`script-src 'sha256-${hash}'`);
    expect(policy).toContain('frame-src https://stately.ai');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it("refuses other sites' pages and foreign Host names, which could read the conversations", async () => {
    stately = await createStatelyInspector({ relay: {} });
    await expect(connect(stately.url, { origin: 'https://attacker.example' })).rejects.toThrow(
      /403/,
    );
    await expect(connect(stately.url, { host: 'attacker.example' })).rejects.toThrow(/403/);
    expect(await statusOf(stately.relayUrl!, { host: 'attacker.example' })).toBe(403);
    // Its own page's origin is welcome.
    const own = await connect(stately.url, { origin: new URL(stately.relayUrl!).origin });
    own.close();
  });

  it('needs a token to listen beyond this machine, and then asks it of every client', async () => {
    await expect(createStatelyInspector({ relay: { host: '0.0.0.0' } })).rejects.toMatchObject({
      code: 'UNSAFE_BIND',
    });
    stately = await createStatelyInspector({
      relay: { host: '0.0.0.0', token: 'a-token-of-sixteen-chars' },
    });
    expect(stately.relayUrl).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/\?token=a-token-of-sixteen-chars$/);
    const port = new URL(stately.relayUrl!).port;
    await expect(connect(`ws://127.0.0.1:${port}/`)).rejects.toThrow(/401/);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(401);
    const allowed = await connect(`ws://127.0.0.1:${port}/?token=a-token-of-sixteen-chars`);
    allowed.close();
  });

  it('refuses a port that is taken, with an error that says what to do', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    await expect(createStatelyInspector({ relay: { port } })).rejects.toMatchObject({
      code: 'LISTEN_FAILED',
      message: expect.stringMatching(/choose another relay\.port/) as unknown,
    });
    await new Promise((resolve) => blocker.close(resolve));
  });
});

describe('importOptionalPeer', () => {
  it('names the install command when the peer is missing', async () => {
    const missing = Object.assign(
      new Error("Cannot find package '@statelyai/inspect' imported from /app/index.js"),
      { code: 'ERR_MODULE_NOT_FOUND' },
    );
    const loading = importOptionalPeer('@statelyai/inspect', 'createStatelyInspector', () =>
      Promise.reject(missing),
    );
    await expect(loading).rejects.toThrow(AgentStatechartError);
    await expect(loading).rejects.toMatchObject({ code: 'MISSING_PEER_DEPENDENCY' });
    await expect(loading).rejects.toThrow(/run `npm install @statelyai\/inspect`/);
  });

  it('rethrows other failures as they are', async () => {
    const broken = Object.assign(new Error("Cannot find module 'superjson'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    await expect(
      importOptionalPeer('@statelyai/inspect', 'feature', () => Promise.reject(broken)),
    ).rejects.toBe(broken);
  });
});

/** The status of a GET with these headers (`fetch` will not send another Host). */
function statusOf(url: string, headers: Record<string, string>): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    get(url, { headers }, (response) => {
      response.resume();
      resolve(response.statusCode);
    }).once('error', reject);
  });
}

function connect(url: string, headers: Record<string, string> = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const { origin, ...others } = headers;
    const socket = new WebSocket(url, { headers: others, ...(origin ? { origin } : {}) });
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}
