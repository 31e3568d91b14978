/** DOT output is valid for Graphviz itself (its WASM build) and shows the whole chart. */
import { Graphviz } from '@hpcc-js/wasm-graphviz';
import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/index.js';
import { toDot } from '../../src/diagram/toDot.js';
import { nestedMachine } from './fixtures/nestedMachine.js';

describe('toDot', () => {
  const dot = toDot(agentMachine);

  it('is a digraph Graphviz lays out, with every state in it', async () => {
    const graphviz = await Graphviz.load();
    const svg = graphviz.dot(dot);
    for (const state of [
      'WaitingForUserInput.Ready',
      'WaitingForUserInput.CheckingPrompt',
      'WaitingForUserInput.SettlingCancelledCalls',
      'ProcessingLlmResponse.Deciding',
      'ProcessingLlmResponse.CheckingStop',
      'ShuttingDown',
    ]) {
      expect(svg).toContain(`<title>${state}</title>`);
    }
    // Each compound state is a cluster around its nested states.
    expect(svg).toContain('<title>cluster_WaitingForUserInput</title>');
    expect(svg).toContain('<title>cluster_ProcessingLlmResponse</title>');
  });

  it('dashes eventless transitions and double-borders the final state', () => {
    expect(dot).toContain(
      '"ProcessingLlmResponse.Deciding" -> "ExecutingTools" [label="always [hasToolCalls]", lhead="cluster_ExecutingTools", style=dashed];',
    );
    expect(dot).toMatch(/"ShuttingDown" \[label=.*peripheries=2/);
    expect(dot).toContain('"(any state)" -> "ShuttingDown" [label="ShutdownRequested"];');
    expect(dot).toContain(
      '"WaitingForUserInput.SettlingCancelledCalls" -> "WaitingForUserInput.Ready" [label="always [!toolsSettling]\\n/ answerToolCalls", style=dashed];',
    );
  });

  it('draws compound states as clusters that Graphviz accepts', async () => {
    const nested = toDot(nestedMachine);
    expect(nested).toContain('subgraph "cluster_Editing" {');
    expect(nested).toContain(
      '"Saving" -> "Editing" [label="after 5000ms", lhead="cluster_Editing"];',
    );
    const graphviz = await Graphviz.load();
    expect(graphviz.dot(nested)).toContain('<title>Editing.Dirty</title>');
  });
});
