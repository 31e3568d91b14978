/**
 * The tree of agents around a stored session, as the inspector reads it from the store: the
 * sessions above one (its parent last) and its subagents' sessions; and the inspector server
 * opening any session of the store on request (`/?session=ID`), answering an id the store does
 * not hold with a 404 that says so, without ever interpreting the id.
 */
import { describe, expect, it } from 'vitest';
import {
  InspectionRecorder,
  sessionPlace,
  startInspectorServer,
  storedSessionCatalog,
} from '../../src/inspect/index.js';
import {
  createMemorySessionStore,
  newSessionHeader,
  type SessionStore,
  subagentSessionId,
} from '../../src/persistence/index.js';

const link = (parentSessionId: string, callId: string, agent: string) => ({
  subagent: {
    parentSessionId,
    callId,
    agent,
    depth: parentSessionId.split('/').length,
    // The agents down to this one, as the tests' ids name them (lead/toolu_a/toolu_c).
    agentPath: [...(parentSessionId.includes('/') ? ['researcher'] : []), agent],
    rootSessionId: parentSessionId.split('/')[0]!,
  },
});

/**
 * `lead` handed two tasks out (the second one's session created first); the first task's
 * researcher handed one of its own to a checker. `stray` names a parent the store no longer holds.
 */
async function treeStore(): Promise<SessionStore> {
  const store = createMemorySessionStore();
  const researcher = subagentSessionId('lead', 'toolu_a');
  await store.create(newSessionHeader('lead', 1_000, { mode: 'default' }));
  await store.create(
    newSessionHeader(
      subagentSessionId('lead', 'toolu_b'),
      1_002,
      link('lead', 'toolu_b', 'writer'),
    ),
  );
  await store.create(newSessionHeader(researcher, 1_001, link('lead', 'toolu_a', 'researcher')));
  await store.create(
    newSessionHeader(
      subagentSessionId(researcher, 'toolu_c'),
      1_003,
      link(researcher, 'toolu_c', 'checker'),
    ),
  );
  await store.create(newSessionHeader('stray', 1_004, link('gone', 'toolu_z', 'checker')));
  await store.create(newSessionHeader('other', 1_005));
  return store;
}

describe('sessionPlace', () => {
  it('finds the sessions above a subagent’s session, top first, and its own subagents’', async () => {
    const store = await treeStore();
    const lead = await sessionPlace(store, 'lead');
    expect(lead?.parent).toBeNull();
    expect(lead?.ancestors).toEqual([]);
    // In the order they were created, with the agent and the task call each answers.
    expect(
      lead?.subagents.map(({ sessionId, agent, callId, state }) => [
        sessionId,
        agent,
        callId,
        state,
      ]),
    ).toEqual([
      ['lead/toolu_a', 'researcher', 'toolu_a', null],
      ['lead/toolu_b', 'writer', 'toolu_b', null],
    ]);

    const checker = await sessionPlace(store, 'lead/toolu_a/toolu_c');
    expect(checker?.parent).toEqual({
      parentSessionId: 'lead/toolu_a',
      callId: 'toolu_c',
      agent: 'checker',
      depth: 2,
      agentPath: ['researcher', 'checker'],
      rootSessionId: 'lead',
      stored: true,
    });
    expect(checker?.ancestors).toEqual([
      { sessionId: 'lead', agent: null, callId: null, stored: true },
      { sessionId: 'lead/toolu_a', agent: 'researcher', callId: 'toolu_a', stored: true },
    ]);
    expect(checker?.subagents).toEqual([]);

    // A parent removed since: named, not claimed to be there.
    const stray = await sessionPlace(store, 'stray');
    expect(stray?.parent?.stored).toBe(false);
    expect(stray?.ancestors).toEqual([
      { sessionId: 'gone', agent: null, callId: null, stored: false },
    ]);
    expect(await sessionPlace(store, 'nope')).toBeUndefined();
  });

  it('ends the walk up where parents name each other', async () => {
    const store = createMemorySessionStore();
    await store.create(newSessionHeader('a', 1, link('b', 'toolu_1', 'x')));
    await store.create(newSessionHeader('b', 2, link('a', 'toolu_2', 'y')));
    const place = await sessionPlace(store, 'a');
    expect(place?.ancestors.map((ancestor) => ancestor.sessionId)).toEqual(['b']);
    expect(place?.subagents.map((child) => child.sessionId)).toEqual(['b']);
  });
});

describe('an inspector serving the sessions of a store', () => {
  it('opens a session on request, once, and refuses an id the store does not hold with a 404 saying so', async ({
    onTestFinished,
  }) => {
    const store = await treeStore();
    const sessions = storedSessionCatalog(new InspectionRecorder(), store);
    const inspector = await startInspectorServer({ sessions });
    onTestFinished(async () => {
      sessions.close();
      await inspector.close();
    });
    expect(inspector.recorder).toBe(sessions.recorder);
    const get = (path: string) => fetch(new URL(path, inspector.url));

    const page = await get(`/?session=${encodeURIComponent('lead/toolu_a')}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toContain('data-testid="session-place"');
    expect((await get('/?session=lead%2Ftoolu_a')).status).toBe(200);
    // Replayed once, however often its page is asked for.
    expect(inspector.recorder.agents().map((agent) => [agent.id, agent.name])).toEqual([
      ['stored:lead/toolu_a', 'lead/toolu_a'],
    ]);

    const tree = await get('/api/session-tree?session=lead%2Ftoolu_a');
    expect(tree.status).toBe(200);
    expect(await tree.json()).toMatchObject({
      sessionId: 'lead/toolu_a',
      parent: { parentSessionId: 'lead', callId: 'toolu_a', agent: 'researcher', stored: true },
      subagents: [{ sessionId: 'lead/toolu_a/toolu_c', agent: 'checker', callId: 'toolu_c' }],
    });

    for (const path of ['/?session=nope', '/api/session-tree?session=nope']) {
      const unknown = await get(path);
      expect(unknown.status).toBe(404);
      expect(await unknown.text()).toBe(
        `there is no session "nope" in this inspector's session store\n`,
      );
    }
    // An id that is markup, or that no store could hold, is quoted as plain text, never served.
    const markup = await get(`/?session=${encodeURIComponent('<img src=x onerror=alert(1)>')}`);
    expect(markup.status).toBe(404);
    expect(markup.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(markup.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await markup.text()).toBe(
      `there is no session "<img src=x onerror=alert(1)>" in this inspector's session store\n`,
    );
    const control = await get(`/?session=${encodeURIComponent('a\nb')}`);
    expect(control.status).toBe(404);
    expect(await control.text()).toContain('there is no session "a\\nb"');
    expect((await get('/api/session-tree')).status).toBe(400);
    expect(inspector.recorder.agents()).toHaveLength(1);
  });

  it('replays a session again once the recorder dropped it', async ({ onTestFinished }) => {
    const store = await treeStore();
    const recorder = new InspectionRecorder({ maxAgents: 1 });
    const sessions = storedSessionCatalog(recorder, store, { follow: true });
    onTestFinished(() => sessions.close());
    const first = await sessions.open('lead');
    expect(await sessions.open('lead')).toBe(first);
    await sessions.open('other');
    expect(recorder.agents().map((agent) => agent.id)).toEqual(['stored:other']);
    const again = await sessions.open('lead');
    expect(again).not.toBe(first);
    expect(recorder.agents().map((agent) => agent.id)).toEqual(['stored:lead']);
  });

  it('answers 404 for a stored session where it serves none, and refuses a catalog on another recorder', async ({
    onTestFinished,
  }) => {
    const inspector = await startInspectorServer();
    onTestFinished(() => inspector.close());
    const response = await fetch(new URL('/?session=lead', inspector.url));
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('this inspector shows no stored sessions\n');

    const sessions = storedSessionCatalog(new InspectionRecorder(), createMemorySessionStore());
    await expect(
      startInspectorServer({ recorder: new InspectionRecorder(), sessions }),
    ).rejects.toThrow(/replays into another one/);
  });
});
