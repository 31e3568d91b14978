/** createAgent({ inspector }) serves the offline inspector page for the agent. */
import { afterEach, describe, expect, it } from 'vitest';
import { createInspectorServer } from '../../src/inspect/index.js';
import { reply } from '../../src/testing/index.js';
import { type Session, startSession } from './harness.js';

let session: Session | undefined;
afterEach(async () => {
  await session?.close();
  session = undefined;
});

describe('createAgent({ inspector })', () => {
  it('starts a local page that lists the agent and its steps, and closes it on shutdown', async () => {
    session = await startSession([reply('Hello from the page.')], {
      inspector: { name: 'page-test' },
    });
    const inspector = session.agent.inspector;
    if (inspector === undefined) throw new Error('expected an inspector');
    const url = await inspector.ready;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    session.agent.send('hi');
    await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('agent-statechart inspector');
    const [agent] = inspector.recorder.agents();
    expect(agent?.name).toBe('page-test');
    expect(agent?.value).toEqual({ WaitingForUserInput: 'Ready' });
    await session.agent.shutdown();
    await expect(fetch(url)).rejects.toThrow();
  });

  it('shares one running page between agents and leaves it open after one shuts down', async () => {
    const shared = createInspectorServer();
    try {
      session = await startSession([reply('One.')], { inspector: shared });
      session.agent.send('hi');
      await session.agent.waitUntilIdle({ timeoutMs: 10_000 });
      await session.agent.shutdown();
      const page = await fetch(await shared.ready);
      expect(page.status).toBe(200);
      expect(shared.recorder.agents()).toHaveLength(1);
    } finally {
      await shared.close();
    }
  });
});
