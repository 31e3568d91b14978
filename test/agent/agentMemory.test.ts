/** What a live agent keeps: not the caller's initial messages (it works on its own copy). */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterEach, describe, expect, it } from 'vitest';
import { type Agent, createAgent, type Message } from '../../src/index.js';

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const agents: Agent[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((agent) => agent.shutdown({ timeoutMs: 1_000 })));
});

function transcript(length: number): Message[] {
  return Array.from({ length }, (_, index) =>
    index % 2 === 0
      ? { role: 'user', content: `question ${index}` }
      : { role: 'assistant', content: [{ type: 'text', text: `answer ${index}` }] },
  );
}

/** Starts an agent from a fresh array and returns a weak reference to that array only. */
function startFrom(length: number): WeakRef<Message[]> {
  const loaded = transcript(length);
  agents.push(createAgent({ autoCommit: false, messages: loaded }));
  return new WeakRef(loaded);
}

describe('what an idle createAgent keeps', () => {
  it('lets the caller’s initial messages go once the caller does', async () => {
    const loaded = startFrom(1_000);
    for (let attempt = 0; attempt < 5 && loaded.deref() !== undefined; attempt++) {
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
    }
    expect(loaded.deref()).toBeUndefined();
    expect(agents[0]!.context.messages.length).toBe(1_000);
  });
});
