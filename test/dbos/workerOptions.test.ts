/**
 * What `startSessionWorker` refuses before it opens anything: a config the chart would refuse at
 * every session's first step (a subagent's spec naming a tool the worker lacks), and a subagent
 * depth that is not one.
 */
import { describe, expect, it } from 'vitest';
import { startSessionWorker, type SessionWorkerOptions } from '../../src/dbos/index.js';
import { createToolRegistry, defineTool } from '../../src/index.js';
import { z } from 'zod';

const lookUp = defineTool({
  name: 'look_up',
  description: 'Look a word up',
  input: z.object({ word: z.string() }),
  mutating: false,
  execute: ({ word }) => word,
});

/** A worker's options on a server nothing listens on: one that tried to connect would fail otherwise. */
function options(extra: Partial<SessionWorkerOptions>): SessionWorkerOptions {
  const tools = createToolRegistry([lookUp]);
  return {
    connectionString: 'postgres://nobody@127.0.0.1:1/none',
    agent: { tools: tools.specs() },
    tools,
    workspace: '.',
    llm: {} as never,
    ...extra,
  };
}

describe('startSessionWorker', () => {
  it('refuses a subagent spec naming a tool the worker lacks, naming the spec, before it connects', async () => {
    const started = startSessionWorker(
      options({
        agent: {
          tools: [{ name: 'look_up', mutating: false }],
          agents: { reviewer: { description: 'Reviews code', tools: ['look_up', 'bash'] } },
        },
      }),
    );
    await expect(started).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
    await expect(started).rejects.toThrow(/agents\['reviewer'\]\.tools.*bash/);
  });

  it('refuses a subagent depth below 1 before it connects', async () => {
    const agents = { reviewer: { description: 'Reviews code' } };
    const tools = [{ name: 'look_up', mutating: false }];
    const started = startSessionWorker(options({ agent: { tools, agents }, maxSubagentDepth: 0 }));
    await expect(started).rejects.toMatchObject({ code: 'INVALID_OPTION' });
    await expect(started).rejects.toThrow(/maxSubagentDepth/);
  });
});
