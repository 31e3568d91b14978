/**
 * The session host: sessions load on their first event, go on after leaving memory, and a
 * restarted host (a new process, here a new host on the same SQLite file) loses nothing.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgentHost, type AgentHost } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { useHostSessions } from '../support/hostSessions.js';

// Each answer names what it answers, so several sessions can share one model.
const sessions = useHostSessions('agent-host-', (request) => {
  const last = request.messages.at(-1);
  return reply(`you said: ${typeof last?.content === 'string' ? last.content : '?'}`);
});
const { host, hosts } = sessions;

async function idle(h: AgentHost, sessionId: string): Promise<void> {
  await (await h.agent(sessionId)).waitUntilIdle({ timeoutMs: 10_000 });
}

describe('an agent host', () => {
  it('makes the built-in tools once for all its sessions: the sandbox is probed once, not per session', async () => {
    const { store, directory } = sessions.temp;
    const server = sessions.server();
    // A bwrap first on PATH that counts its runs (the probe's among them) and succeeds.
    const bin = join(directory, 'bin');
    const runs = join(directory, 'bwrap-runs');
    await mkdir(bin);
    await writeFile(join(bin, 'bwrap'), `#!/bin/sh\necho run >> '${runs}'\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path ?? ''}`;
    try {
      const h = createAgentHost({
        store,
        workspace: directory,
        autoCommit: false,
        anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
      });
      hosts.push(h);
      await Promise.all(['alice', 'bob', 'carol'].map((id) => h.send(id, 'hello')));
      await Promise.all(['alice', 'bob', 'carol'].map((id) => idle(h, id)));
      expect(h.live()).toHaveLength(3);
    } finally {
      process.env.PATH = path;
    }
    expect((await readFile(runs, 'utf8')).trim().split('\n')).toEqual(['run']);
  });

  it('gives each session the options sessionOptions names for it, over the shared ones', async () => {
    const { store, directory } = sessions.temp;
    const server = sessions.server();
    const h = createAgentHost({
      store,
      workspace: directory,
      autoCommit: false,
      system: 'shared',
      anthropic: { baseURL: server.baseURL, apiKey: 'test-key' },
      sessionOptions: (sessionId) => ({ system: `You serve ${sessionId}.` }),
    });
    hosts.push(h);
    await Promise.all([h.send('alice', 'hello'), h.send('bob', 'hi')]);
    await Promise.all([idle(h, 'alice'), idle(h, 'bob')]);
    const systems = server.requests
      .map((request) => (request.body.system as unknown as Array<{ text: string }>)[0]?.text)
      .sort();
    expect(systems).toEqual(['You serve alice.', 'You serve bob.']);
  });

  it('loads sessions on their first event and tells listeners which session spoke', async () => {
    const h = host();
    const heard = new Map<string, string>();
    h.on('text', ({ sessionId, text }) =>
      heard.set(sessionId, (heard.get(sessionId) ?? '') + text),
    );
    await Promise.all([h.send('alice', 'hello'), h.send('bob', 'hi')]);
    await Promise.all([idle(h, 'alice'), idle(h, 'bob')]);
    expect(h.live().sort()).toEqual(['alice', 'bob']);
    expect(Object.fromEntries(heard)).toEqual({ alice: 'you said: hello', bob: 'you said: hi' });
  });

  it('drops idle sessions from memory, and their next event loads them where they were', async () => {
    const h = host(50);
    await h.send('alice', 'first');
    await idle(h, 'alice');
    await expect.poll(() => h.live()).toEqual([]);
    await h.send('alice', 'second');
    await idle(h, 'alice');
    const agent = await h.agent('alice');
    expect(agent.context.messages.map((message) => message.content)).toEqual([
      'first',
      [{ type: 'text', text: 'you said: first' }],
      'second',
      [{ type: 'text', text: 'you said: second' }],
    ]);
  });

  it('loses nothing when the service restarts: a new host goes on from the store', async () => {
    const before = host();
    await before.send('alice', 'remember me');
    await idle(before, 'alice');
    await before.close();
    const after = host();
    await after.send('alice', 'do you?');
    await idle(after, 'alice');
    const sent = sessions.server().requests.at(-1)?.body.messages ?? [];
    expect(sent.map((message) => message.content)).toEqual([
      'remember me',
      [{ type: 'text', text: 'you said: remember me' }],
      'do you?',
    ]);
  });

  it('refuses input its session can no longer store once another process opened it, then opens it again', async () => {
    const here = host();
    await here.send('alice', 'first');
    await idle(here, 'alice');
    // Another process (here another host on the same file) opens the session: it is the writer now.
    const elsewhere = host();
    await elsewhere.send('alice', 'second');
    await idle(elsewhere, 'alice');

    const refused = await here.send('alice', 'lost?').catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'SESSION_FENCED' });
    await expect.poll(() => here.live()).toEqual([]);

    await here.send('alice', 'third');
    await idle(here, 'alice');
    const inputs = (await here.agent('alice')).context.messages
      .filter((message) => message.role === 'user')
      .map((message) => message.content);
    expect(inputs).toEqual(['first', 'second', 'third']);
  });

  it('handles one session’s events in the order they came', async () => {
    const h = host();
    await Promise.all(['one', 'two', 'three'].map((text) => h.send('alice', text)));
    await idle(h, 'alice');
    const inputs = (await h.agent('alice')).context.messages
      .filter((message) => message.role === 'user')
      .map((message) => message.content);
    expect(inputs).toEqual(['one', 'two', 'three']);
  });
});
