/**
 * Bad input through the handle of a real agent (actor mode): every method takes anything a
 * caller may pass by mistake or by malice and answers a malformed value with a MALFORMED_EVENT
 * diagnostic, never a throw, leaving the agent as it was and its snapshot plain JSON.
 */
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/index.js';
import { reply } from '../../src/testing/index.js';
import { HOSTILE_VALUES } from '../support/hostileValues.js';
import { sessionsClosedAfterEach } from './harness.js';

const startSession = sessionsClosedAfterEach();

/** Each way into the agent, and the hostile kinds that are legitimate there (left out). */
const ENTRIES: Array<{
  call: string;
  use: (agent: Agent, value: unknown) => void;
  fine?: string[];
}> = [
  { call: 'send(value)', use: (agent, v) => agent.send(v as never), fine: ['hugeString'] },
  {
    call: 'send({ role: value })',
    use: (agent, v) => agent.send({ role: v, content: 'x' } as never),
  },
  {
    call: 'send({ content: value })',
    use: (agent, v) => agent.send({ role: 'user', content: v } as never),
    fine: ['hugeString'],
  },
  {
    call: 'send({ content: [{ type: "text", text: value }] })',
    use: (agent, v) => agent.send({ role: 'user', content: [{ type: 'text', text: v }] } as never),
    fine: ['hugeString'],
  },
  { call: 'approve(value)', use: (agent, v) => agent.approve(v as never), fine: ['hugeString'] },
  {
    call: 'approve(id, value)',
    use: (agent, v) => agent.approve('toolu_1', v as never),
    fine: ['undefined', 'protoKey', 'nullPrototype', 'transparentProxy'],
  },
  {
    call: 'deny(id, { remember: value })',
    use: (agent, v) => agent.deny('toolu_1', { remember: v } as never),
    fine: ['undefined'],
  },
  { call: 'setPermissionMode(value)', use: (agent, v) => agent.setPermissionMode(v as never) },
  { call: 'dispatch(value)', use: (agent, v) => agent.dispatch(v as never) },
  { call: 'dispatch({ type: value })', use: (agent, v) => agent.dispatch({ type: v } as never) },
  {
    call: 'dispatch({ type: "UserInput", message: value })',
    use: (agent, v) => agent.dispatch({ type: 'UserInput', message: v } as never),
  },
];

describe('the Agent handle with hostile input', () => {
  it('reports every malformed value as a MALFORMED_EVENT diagnostic and stays as it was', async () => {
    const session = await startSession([reply('Still here.')]);
    const { agent, notes } = session;
    let checked = 0;
    for (const entry of ENTRIES) {
      for (const [kind, make] of Object.entries(HOSTILE_VALUES)) {
        if (entry.fine?.includes(kind)) continue;
        notes.diagnostic.length = 0;
        const where = `${entry.call} with ${kind}`;
        expect(() => entry.use(agent, make()), where).not.toThrow();
        expect(
          notes.diagnostic.map((d) => d.code),
          where,
        ).toEqual(['MALFORMED_EVENT']);
        expect(agent.state, where).toBe('WaitingForUserInput');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(250);
    // interrupt() takes nothing; extra arguments change nothing either.
    const interrupt: (...extra: unknown[]) => void = agent.interrupt.bind(agent);
    expect(() => {
      interrupt(1n, HOSTILE_VALUES.revokedProxy!());
    }).not.toThrow();
    expect(agent.context.messages).toEqual([]);
    expect(agent.context.queue).toEqual([]);
    expect(session.server.requests).toHaveLength(0);
    expect(JSON.parse(JSON.stringify(agent.snapshot()))).toEqual(agent.snapshot());
    // And the agent still works.
    agent.send('hi');
    await agent.waitUntilIdle({ timeoutMs: 10_000 });
    expect(agent.context.messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: 'Still here.' }],
    });
  });

  it('says what is wrong, by field', async () => {
    const session = await startSession([]);
    const { agent, notes } = session;
    agent.setPermissionMode(1n as never);
    agent.send({ role: 1n, content: 'x' } as never);
    agent.approve(1n as never);
    agent.send({
      role: 'user',
      content: [{ type: 'tool_use', id: 't', name: 'n', input: new Map() }],
    } as never);
    expect(notes.diagnostic.map((d) => d.message)).toEqual([
      'SetPermissionMode: mode is a BigInt (1n)',
      'UserInput: message.role is a BigInt (1n)',
      'ToolApproval: callId is a BigInt (1n)',
      'UserInput: message.content[0].input is a Map, not a plain object',
    ]);
  });

  it('takes only `remember` from approval options, never fields that would change the event', async () => {
    const session = await startSession([]);
    const { agent, notes } = session;
    agent.approve('toolu_1', { decision: 'deny', type: 'Interrupt', remember: true } as never);
    expect(notes.diagnostic).toMatchObject([
      {
        code: 'EVENT_NOT_ACCEPTED',
        message: 'ToolApproval is not accepted in state WaitingForUserInput.Ready; nothing changed',
      },
    ]);
  });
});
