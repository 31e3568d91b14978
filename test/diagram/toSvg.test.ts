/** The SVG is drawn from an ELK layout without a browser, deterministically, and is addressable. */
import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/index.js';
import { layoutMachine, stateId } from '../../src/diagram/layoutMachine.js';
import { toSvg } from '../../src/diagram/toSvg.js';
import { nestedMachine } from './fixtures/nestedMachine.js';
import { AGENT_STATE_NAMES } from '../../src/index.js';

/**
 * Where the agent machine nests states: the five inside WaitingForUserInput, the four inside
 * CallingLlm, the two inside ProcessingLlmResponse, and the regions of ExecutingTools with their
 * states.
 */
const NESTED = [
  'WaitingForUserInput.Ready',
  'WaitingForUserInput.CheckingCompaction',
  'WaitingForUserInput.Compacting',
  'WaitingForUserInput.CheckingPrompt',
  'WaitingForUserInput.SettlingCancelledCalls',
  'CallingLlm.Sizing',
  'CallingLlm.CheckingCompaction',
  'CallingLlm.Compacting',
  'CallingLlm.Streaming',
  'ProcessingLlmResponse.Deciding',
  'ProcessingLlmResponse.CheckingStop',
  'ExecutingTools.Hooks',
  'ExecutingTools.Hooks.Idle',
  'ExecutingTools.Hooks.Running',
  'ExecutingTools.Approvals',
  'ExecutingTools.Approvals.Idle',
  'ExecutingTools.Approvals.Waiting',
  'ExecutingTools.Subagents',
  'ExecutingTools.Subagents.Idle',
  'ExecutingTools.Subagents.Running',
  'ExecutingTools.Questions',
  'ExecutingTools.Questions.Idle',
  'ExecutingTools.Questions.Waiting',
];

describe('toSvg', () => {
  it('gives every state a <g data-state> and every transition a <g data-event>', async () => {
    const svg = await toSvg(agentMachine);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    for (const state of [...AGENT_STATE_NAMES, ...NESTED]) {
      expect(svg).toContain(`data-state="${state}"`);
    }
    expect(svg).toContain('data-event="LlmError"');
    expect(svg).toContain('data-event="ShutdownRequested"');
    expect(svg).toContain('data-event="PostToolsHookCompleted"');
    // Eventless transitions have the empty event type, as XState's own transitions do: the three
    // of Ready for queued input, leaving SettlingCancelledCalls, the three of Sizing, the five of
    // Deciding, the four of ExecutingTools, and into and out of each wait of ExecutingTools'
    // four regions.
    expect(svg.match(/<g class="edge always" data-event=""/g)).toHaveLength(24);
    // The states of a compaction, nested twice, are told apart by their path.
    expect(svg).toContain('data-transition="CallingLlm.Compacting:LlmError:0"');
    expect(svg).toContain('data-transition="WaitingForUserInput.Compacting:LlmError:0"');
    expect(svg).toContain('class="final-border"');
    expect(svg).toContain('<g class="initial" data-initial-of="">');
  });

  it('is byte-for-byte the same on every run', async () => {
    expect(await toSvg(agentMachine)).toBe(await toSvg(agentMachine));
  });

  it('draws a compact chart for panels: smaller, labels without actions, the whole label in a tooltip', async () => {
    const roomy = await layoutMachine(agentMachine, { details: false });
    const compact = await layoutMachine(agentMachine, { details: false, compact: true });
    expect(compact.width * compact.height).toBeLessThan(roomy.width * roomy.height * 0.7);
    const svg = await toSvg(agentMachine, { details: false, compact: true });
    const retry =
      /<g class="edge event" data-event="LlmError" data-transition="CallingLlm.Streaming:LlmError:0"[^>]*>(.*?)<\/g>/.exec(
        svg,
      )?.[1] ?? '';
    expect(retry).toContain(
      '<title>LlmError [retryableError &amp;&amp; attemptsLeft] / recordRetryableError</title>',
    );
    expect(retry).toContain('attemptsLeft]');
    expect(retry.replace(/<title>.*<\/title>/, '')).not.toContain('recordRetryableError');
    // A full label needs no tooltip.
    expect(await toSvg(agentMachine, { details: false })).not.toContain('<title>LlmError');
  });

  it('escapes text for XML', async () => {
    const svg = await toSvg(agentMachine);
    expect(svg).toContain('retryableError &amp;&amp; attemptsLeft');
    expect(svg).not.toMatch(/&&/);
  });
});

describe('layoutMachine', () => {
  it('places every state inside the drawing and its parent, without overlaps between siblings', async () => {
    const layout = await layoutMachine(agentMachine);
    const states = layout.nodes.filter((node) => node.kind === 'state');
    expect(states.map((node) => node.path).sort()).toEqual(
      [...AGENT_STATE_NAMES, ...NESTED].sort(),
    );
    for (const node of layout.nodes) {
      expect(node.x).toBeGreaterThanOrEqual(0);
      expect(node.y).toBeGreaterThanOrEqual(0);
      expect(node.x + node.width).toBeLessThanOrEqual(layout.width);
      expect(node.y + node.height).toBeLessThanOrEqual(layout.height);
    }
    for (const path of NESTED) {
      const parentPath = path.slice(0, path.lastIndexOf('.'));
      const parent = layout.nodes.find((node) => node.id === stateId(parentPath));
      const nested = layout.nodes.find((node) => node.id === stateId(path));
      if (!parent || !nested) throw new Error(`missing ${path} or its parent`);
      expect(nested.x).toBeGreaterThan(parent.x);
      expect(nested.y).toBeGreaterThan(parent.y + parent.headerHeight - 1);
      expect(nested.x + nested.width).toBeLessThan(parent.x + parent.width);
      expect(nested.y + nested.height).toBeLessThan(parent.y + parent.height);
    }
    for (const a of layout.nodes) {
      for (const b of layout.nodes) {
        if (a === b || parentOf(a) !== parentOf(b)) continue;
        const apart =
          a.x + a.width <= b.x ||
          b.x + b.width <= a.x ||
          a.y + a.height <= b.y ||
          b.y + b.height <= a.y;
        expect(apart, `${a.id} overlaps ${b.id}`).toBe(true);
      }
    }
  });

  it('routes each edge from its source box to its target box', async () => {
    const layout = await layoutMachine(agentMachine);
    const byId = new Map(layout.nodes.map((node) => [node.id, node]));
    for (const edge of layout.edges) {
      const source = byId.get(edge.source);
      const target = byId.get(edge.target);
      const start = edge.points[0];
      const end = edge.points[edge.points.length - 1];
      if (!source || !target || !start || !end) throw new Error(`edge ${edge.id} is incomplete`);
      expect(onBorder(start, source), `${edge.id} start`).toBe(true);
      expect(onBorder(end, target), `${edge.id} end`).toBe(true);
    }
  });

  it('nests children inside their compound state', async () => {
    const layout = await layoutMachine(nestedMachine);
    const editing = layout.nodes.find((node) => node.id === stateId('Editing'));
    const dirty = layout.nodes.find((node) => node.id === stateId('Editing.Dirty'));
    if (!editing || !dirty) throw new Error('missing nodes');
    expect(dirty.x).toBeGreaterThan(editing.x);
    expect(dirty.y).toBeGreaterThan(editing.y + editing.headerHeight - 1);
    expect(dirty.x + dirty.width).toBeLessThan(editing.x + editing.width);
    expect(dirty.y + dirty.height).toBeLessThan(editing.y + editing.height);
    expect(layout.nodes.find((node) => node.id === 'anyState:Editing')).toBeDefined();
  });
});

/** The path of the state a node is drawn in ('' for the top level). */
function parentOf(node: { kind: string; path: string }): string {
  return node.kind === 'state' ? node.path.split('.').slice(0, -1).join('.') : node.path;
}

function onBorder(
  point: { x: number; y: number },
  box: { x: number; y: number; width: number; height: number },
): boolean {
  const slack = 1.5;
  const inX = point.x >= box.x - slack && point.x <= box.x + box.width + slack;
  const inY = point.y >= box.y - slack && point.y <= box.y + box.height + slack;
  const nearEdge =
    Math.abs(point.x - box.x) <= slack ||
    Math.abs(point.x - box.x - box.width) <= slack ||
    Math.abs(point.y - box.y) <= slack ||
    Math.abs(point.y - box.y - box.height) <= slack;
  return inX && inY && nearEdge;
}
