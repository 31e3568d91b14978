/**
 * A session log is replayed through the chart that recorded it, so a session another version
 * recorded is refused, saying which version recorded it, which version this is, and what to do;
 * the session is left as it was.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentStatechartError, createMemorySessionStore, SessionCore } from '../../src/index.js';
import { CHART_VERSION, PACKAGE_VERSION } from '../../src/persistence/chartVersion.js';
import type { SessionStore } from '../../src/persistence/sessionStore.js';

/** The chart version of a session the previous log format (1) recorded: `1.<digest>`. */
const PREVIOUS_FORMAT = '1.5e0c9d2a71b4f386';

async function storedByPreviousVersion(packageVersion?: string): Promise<SessionStore> {
  const store = createMemorySessionStore();
  await store.create({
    sessionId: 'old',
    chartVersion: PREVIOUS_FORMAT,
    createdAt: 1,
    ...(packageVersion === undefined ? {} : { packageVersion }),
  });
  await store.append('old', {
    after: 0,
    entries: [
      {
        seq: 1,
        at: 2,
        kind: 'event',
        data: { type: 'UserInput', message: { role: 'user', content: 'hi' } },
      },
    ],
  });
  return store;
}

async function refusal(store: SessionStore): Promise<AgentStatechartError> {
  const error = await SessionCore.open(store, 'old').then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(AgentStatechartError);
  expect(error).toMatchObject({ code: 'SESSION_VERSION_MISMATCH' });
  return error as AgentStatechartError;
}

describe('the version a session was recorded with', () => {
  it('is noted in the header of every new session: the chart version and the package version', async () => {
    const store = createMemorySessionStore();
    await SessionCore.open(store, 'new');
    expect((await store.load('new'))?.header).toMatchObject({
      chartVersion: CHART_VERSION,
      packageVersion: PACKAGE_VERSION,
    });
    expect(CHART_VERSION).toMatch(/^2\.[0-9a-f]{16}$/);
  });

  it('is the version in package.json', async () => {
    const manifest = JSON.parse(
      await readFile(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    ) as { version: string };
    expect(PACKAGE_VERSION).toBe(manifest.version);
  });

  it('refuses a session of the previous log format, naming both versions and what to do, and changes nothing', async () => {
    const store = await storedByPreviousVersion();
    const before = await store.load('old');
    const { message } = await refusal(store);
    expect(message).toContain("session 'old'");
    expect(message).toContain(`chart version ${PREVIOUS_FORMAT}`);
    expect(message).toContain(
      `agent-statechart ${PACKAGE_VERSION} (chart version ${CHART_VERSION})`,
    );
    expect(message).toMatch(
      /finish the session with the agent-statechart version that recorded it, or start a new session/i,
    );
    expect(await store.load('old')).toEqual(before);
  });

  it('names the package version that recorded a session when its header has it', async () => {
    const { message } = await refusal(await storedByPreviousVersion('0.0.9'));
    expect(message).toContain(
      `recorded by agent-statechart 0.0.9 (chart version ${PREVIOUS_FORMAT})`,
    );
    expect(message).toMatch(
      /finish the session with agent-statechart 0\.0\.9, or start a new session/i,
    );
  });
});
