/**
 * Where subagents' sessions live and how the tree of agents reads back: the id a parent and a
 * task call make (a digest when too long for a session id, the same every time), the link a
 * header's metadata holds (anything else is no link), and the sessions ordered as a tree.
 */
import { describe, expect, it } from 'vitest';
import {
  checkSessionId,
  childLink,
  type SessionSummary,
  sessionTree,
  subagentLinkOf,
  subagentSessionId,
  subagentSessionConfig,
} from '../../src/persistence/index.js';
import type { AgentConfig } from '../../src/index.js';

function summary(sessionId: string, parent?: string): SessionSummary {
  return {
    sessionId,
    createdAt: 0,
    updatedAt: 0,
    head: 1,
    state: 'WaitingForUserInput',
    messageCount: 2,
    ...(parent === undefined
      ? {}
      : { metadata: { subagent: childLink(parent, undefined, { callId: 'c', agent: 'a' }) } }),
  };
}

describe('subagent sessions', () => {
  it('joins the parent’s id and the call’s, and digests an id too long to store', () => {
    expect(subagentSessionId('alice-1', 'toolu_1')).toBe('alice-1/toolu_1');
    const long = 'p'.repeat(190);
    const id = subagentSessionId(long, 'toolu_0123456789');
    expect(id).toMatch(/^subagent-[0-9a-f]{40}$/);
    expect(subagentSessionId(long, 'toolu_0123456789')).toBe(id);
    expect(subagentSessionId(long, 'toolu_0123456780')).not.toBe(id);
    expect(() => checkSessionId(id)).not.toThrow();
    expect(() => checkSessionId(subagentSessionId('x'.repeat(200), 'toolu_1'))).not.toThrow();
  });

  it('reads a link only where every field is there and of its kind', () => {
    const link = {
      parentSessionId: 'p/c0',
      callId: 'c',
      agent: 'a',
      depth: 2,
      agentPath: ['b', 'a'],
      rootSessionId: 'p',
      mode: 'plan',
    };
    expect(subagentLinkOf({ subagent: link, title: 't' })).toEqual(link);
    const { mode: _mode, ...modeless } = link;
    expect(subagentLinkOf({ subagent: modeless })).toEqual(modeless);
    expect(subagentLinkOf(undefined)).toBeUndefined();
    expect(subagentLinkOf({ subagent: 'p' })).toBeUndefined();
    expect(subagentLinkOf({ subagent: { ...link, agent: 3 } })).toBeUndefined();
    expect(subagentLinkOf({ subagent: { ...link, depth: 0 } })).toBeUndefined();
    expect(subagentLinkOf({ subagent: { ...link, agentPath: ['a'] } })).toBeUndefined();
    expect(subagentLinkOf({ subagent: { ...link, agentPath: ['a', 'b'] } })).toBeUndefined();
    expect(subagentLinkOf({ subagent: { ...link, mode: 'yolo' } })).toBeUndefined();
  });

  it('lists each session once, its subagents’ sessions under it, depth first', () => {
    const sessions = [
      summary('b/2', 'b'),
      summary('a'),
      summary('a/1/3', 'a/1'),
      summary('b'),
      summary('orphan/9', 'gone'),
      summary('a/1', 'a'),
      summary('x', 'y'),
      summary('y', 'x'),
    ];
    expect(sessionTree(sessions).map(({ session, depth }) => [session.sessionId, depth])).toEqual([
      ['a', 0],
      ['a/1', 1],
      ['a/1/3', 2],
      ['b', 0],
      ['b/2', 1],
      ['orphan/9', 0],
      ['x', 0],
      ['y', 1],
    ]);
  });

  it('links a subagent’s session a level below its parent’s, down the agents from the top', () => {
    const child = childLink('top', undefined, { callId: 'c1', agent: 'researcher', mode: 'plan' });
    expect(child).toEqual({
      parentSessionId: 'top',
      callId: 'c1',
      agent: 'researcher',
      depth: 1,
      agentPath: ['researcher'],
      rootSessionId: 'top',
      mode: 'plan',
    });
    const grandchild = childLink('top/c1', child, { callId: 'c2', agent: 'checker' });
    expect(grandchild).toEqual({
      parentSessionId: 'top/c1',
      callId: 'c2',
      agent: 'checker',
      depth: 2,
      agentPath: ['researcher', 'checker'],
      rootSessionId: 'top',
    });
    expect(subagentLinkOf({ subagent: grandchild })).toEqual(grandchild);
  });

  it('configures a subagent’s session as each parent started its child, down from the top', () => {
    const top: AgentConfig = {
      tools: [{ name: 'read_file' }, { name: 'bash' }],
      permissions: { mode: 'default' },
      askUser: true,
      hooks: { preToolUse: true, stop: true },
      maxTurns: 30,
      agents: {
        researcher: { description: 'Researches', system: 'You research.' },
        checker: { description: 'Checks', tools: ['read_file'], maxTurns: 3 },
      },
    };
    const link = childLink(
      'top/c1',
      childLink('top', undefined, { callId: 'c1', agent: 'researcher' }),
      {
        callId: 'c2',
        agent: 'checker',
        mode: 'plan',
      },
    );
    const researcher = subagentSessionConfig(top, { agentPath: ['researcher'] }, 2);
    expect(researcher).toMatchObject({
      system: 'You research.',
      maxTurns: 30,
      hooks: { preToolUse: true },
    });
    expect(researcher.askUser).toBeUndefined();
    expect(Object.keys(researcher.agents ?? {})).toEqual(['researcher', 'checker']);
    const checker = subagentSessionConfig(top, link, 2);
    expect(checker.tools).toEqual([{ name: 'read_file' }]);
    expect(checker).toMatchObject({ maxTurns: 3, permissions: { mode: 'plan' } });
    expect(checker.agents).toBeUndefined();
    expect(checker.system).toBeUndefined();
    expect(() => subagentSessionConfig(top, { agentPath: ['nobody'] }, 2)).toThrow(/nobody/);
  });
});
