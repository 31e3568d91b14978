/**
 * What `startSessionWorker` refuses before it opens anything: a config whose subagents the
 * workers could not start (a task call would have nowhere to run).
 */
import { describe, expect, it } from 'vitest';
import { startSessionWorker } from '../../src/dbos/index.js';
import { createToolRegistry } from '../../src/index.js';

describe('startSessionWorker', () => {
  it('refuses agents in the worker’s config, naming the option, before it connects', async () => {
    const started = startSessionWorker({
      // Nothing listens here: a worker that tried to connect would fail otherwise.
      connectionString: 'postgres://nobody@127.0.0.1:1/none',
      agent: { agents: { reviewer: { description: 'Reviews code' } } },
      tools: createToolRegistry([]),
      workspace: '.',
      llm: {} as never,
    });
    await expect(started).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    await expect(started).rejects.toThrow(/agent\.agents/);
  });
});
