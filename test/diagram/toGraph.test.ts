/** The graph model reads any XState v5 machine, including what `toDirectedGraph` leaves out. */
import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/index.js';
import { toGraph } from '../../src/diagram/toGraph.js';
import { descendants, edgeOwner, statesByPath } from '../../src/diagram/walkStates.js';
import { nestedMachine } from './fixtures/nestedMachine.js';
import { AGENT_STATE_NAMES } from '../../src/index.js';

const SEVEN = AGENT_STATE_NAMES;

describe('toGraph', () => {
  describe('the agent machine', () => {
    const graph = toGraph(agentMachine);

    it('has the seven top-level states in definition order', () => {
      expect(graph.root.children.map((state) => state.path)).toEqual(SEVEN);
    });

    it('nests Ready, the compaction a Compact event asks for, CheckingPrompt and SettlingCancelledCalls in WaitingForUserInput, with what each invokes', () => {
      const states = statesByPath(graph);
      expect(states.get('WaitingForUserInput')).toMatchObject({
        kind: 'compound',
        entry: ['announceIdle'],
      });
      expect(states.get('WaitingForUserInput')?.children.map((state) => state.path)).toEqual([
        'WaitingForUserInput.Ready',
        'WaitingForUserInput.CheckingCompaction',
        'WaitingForUserInput.Compacting',
        'WaitingForUserInput.CheckingPrompt',
        'WaitingForUserInput.SettlingCancelledCalls',
      ]);
      expect(states.get('WaitingForUserInput.CheckingCompaction')).toMatchObject({
        kind: 'atomic',
        entry: ['runPreCompactHook'],
        invoke: ['hook'],
      });
      expect(states.get('WaitingForUserInput.Compacting')).toMatchObject({
        kind: 'atomic',
        entry: ['sendCompactionRequest'],
        invoke: ['llm'],
      });
      expect(states.get('WaitingForUserInput.CheckingPrompt')).toMatchObject({
        kind: 'atomic',
        entry: ['runPromptHook'],
        invoke: ['hook'],
      });
      expect(states.get('WaitingForUserInput.SettlingCancelledCalls')).toMatchObject({
        kind: 'atomic',
        invoke: ['toolGraceTimer'],
      });
    });

    it('nests Sizing, the compaction before a request and Streaming in CallingLlm, the hook and the model invoked by the last three', () => {
      const states = statesByPath(graph);
      expect(states.get('CallingLlm')).toMatchObject({ kind: 'compound', entry: [], invoke: [] });
      expect(states.get('CallingLlm')?.children.map((state) => state.path)).toEqual([
        'CallingLlm.Sizing',
        'CallingLlm.CheckingCompaction',
        'CallingLlm.Compacting',
        'CallingLlm.Streaming',
      ]);
      expect(states.get('CallingLlm.Sizing')).toMatchObject({ kind: 'atomic', invoke: [] });
      expect(states.get('CallingLlm.CheckingCompaction')).toMatchObject({
        entry: ['runPreCompactHook'],
        invoke: ['hook'],
      });
      expect(states.get('CallingLlm.Compacting')).toMatchObject({
        entry: ['sendCompactionRequest'],
        invoke: ['llm'],
      });
    });

    it('drops what a summary call streams, and leaves a compaction for the request it was for, done or not', () => {
      const compacting = graph.transitions.filter(
        (transition) => transition.source === 'CallingLlm.Compacting',
      );
      expect(compacting.map((transition) => [transition.label, transition.targets])).toEqual([
        ['LlmStarted', []],
        ['LlmTextDelta', []],
        ['LlmToolCallDelta', []],
        ['LlmCompleted / compactTranscript', ['CallingLlm.Streaming']],
        ['LlmError / failCompaction', ['CallingLlm.Streaming']],
        ['Interrupt / abandonCompaction', ['WaitingForUserInput']],
        ['ShutdownRequested / abandonCompaction', ['ShuttingDown']],
        ['Resume', ['CallingLlm.Compacting']],
      ]);
      const compact = graph.transitions.filter((transition) => transition.event === 'Compact');
      expect(compact.map((transition) => [transition.label, transition.targets])).toEqual([
        ['Compact [!compactable] / reportNothingToCompact', []],
        [
          'Compact [preCompactHookOn] / beginRequestedCompaction',
          ['WaitingForUserInput.CheckingCompaction'],
        ],
        ['Compact / beginRequestedCompaction', ['WaitingForUserInput.Compacting']],
      ]);
    });

    it('nests Deciding and CheckingStop in ProcessingLlmResponse, the stop hook invoked by the second', () => {
      const states = statesByPath(graph);
      expect(states.get('ProcessingLlmResponse')).toMatchObject({ kind: 'compound' });
      expect(states.get('ProcessingLlmResponse')?.children.map((state) => state.path)).toEqual([
        'ProcessingLlmResponse.Deciding',
        'ProcessingLlmResponse.CheckingStop',
      ]);
      expect(states.get('ProcessingLlmResponse.CheckingStop')).toMatchObject({
        kind: 'atomic',
        entry: ['runStopHook'],
        invoke: ['hook'],
      });
    });

    it('marks the initial states, top-level and nested, and the final state', () => {
      const states = statesByPath(graph);
      expect(
        descendants(graph.root).flatMap((state) => (state.initial ? [state.path] : [])),
      ).toEqual([
        'WaitingForUserInput',
        'WaitingForUserInput.Ready',
        'CallingLlm.Sizing',
        'ProcessingLlmResponse.Deciding',
        'ExecutingTools.Hooks.Idle',
        'ExecutingTools.Approvals.Idle',
        'ExecutingTools.Subagents.Idle',
        'ExecutingTools.Questions.Idle',
      ]);
      // The regions of ExecutingTools are all active: none is its initial state.
      expect(states.get('ExecutingTools')?.kind).toBe('parallel');
      expect(states.get('ShuttingDown')?.kind).toBe('final');
    });

    it('keeps the eventless transitions, with their guards', () => {
      const always = graph.transitions.filter((transition) => transition.trigger === 'always');
      expect(always.map((transition) => [transition.source, transition.label])).toEqual([
        ['WaitingForUserInput.Ready', 'always [hasQueuedInput && promptHookOn] / holdQueuedPrompt'],
        [
          'WaitingForUserInput.Ready',
          'always [hasQueuedInput && budgetSpent] / startQueuedTurn, stopAtLimit',
        ],
        ['WaitingForUserInput.Ready', 'always [hasQueuedInput] / startQueuedTurn'],
        ['WaitingForUserInput.SettlingCancelledCalls', 'always [!toolsSettling] / answerToolCalls'],
        ['CallingLlm.Sizing', 'always [!compactionDue]'],
        ['CallingLlm.Sizing', 'always [preCompactHookOn] / beginCompaction'],
        ['CallingLlm.Sizing', 'always / beginCompaction'],
        [
          'ProcessingLlmResponse.Deciding',
          'always [responseRefused] / refuseToolCalls, reportStopReason',
        ],
        ['ProcessingLlmResponse.Deciding', 'always [hasToolCalls]'],
        ['ProcessingLlmResponse.Deciding', 'always [outputAskable] / askForOutput'],
        ['ProcessingLlmResponse.Deciding', 'always [stopHookDue]'],
        ['ProcessingLlmResponse.Deciding', 'always / reportStopReason, endOutputTurn'],
        ['ExecutingTools', 'always [allToolsDone && anyMutatingToolSucceeded] / answerToolCalls'],
        [
          'ExecutingTools',
          'always [allToolsDone && outputSettled] / answerToolCalls, endOutputTurn',
        ],
        ['ExecutingTools', 'always [allToolsDone && limitReached] / answerToolCalls, stopAtLimit'],
        ['ExecutingTools', 'always [allToolsDone] / answerToolCalls'],
        ['ExecutingTools.Hooks.Idle', 'always [toolHooksRunning]'],
        ['ExecutingTools.Hooks.Running', 'always [!toolHooksRunning]'],
        ['ExecutingTools.Approvals.Idle', 'always [approvalsWaiting]'],
        ['ExecutingTools.Approvals.Waiting', 'always [!approvalsWaiting]'],
        ['ExecutingTools.Subagents.Idle', 'always [subagentsRunning]'],
        ['ExecutingTools.Subagents.Running', 'always [!subagentsRunning]'],
        ['ExecutingTools.Questions.Idle', 'always [questionsWaiting]'],
        ['ExecutingTools.Questions.Waiting', 'always [!questionsWaiting]'],
      ]);
    });

    it('labels transitions with event, guard and actions', () => {
      const labels = graph.transitions.map((transition) => transition.label);
      expect(labels).toContain('LlmError [retryableError && attemptsLeft] / recordRetryableError');
      expect(labels).toContain('LlmError / giveUp');
      expect(labels).toContain(
        'PostToolsHookCompleted [limitReached] / reportHookFailure, stopAtLimit',
      );
      expect(labels).toContain('Interrupt [toolCallsNeedGrace] / abortToolCalls');
      // The chart handles no actor errors: each actor answers with the chart's own events.
      expect(labels.filter((label) => label.startsWith('onError'))).toEqual([]);
    });

    it('draws the interrupt that waits for aborted calls into the nested state', () => {
      const interrupts = graph.transitions.filter(
        (transition) => transition.source === 'ExecutingTools' && transition.event === 'Interrupt',
      );
      expect(interrupts.map((transition) => transition.targets)).toEqual([
        ['WaitingForUserInput.SettlingCancelledCalls'],
        ['WaitingForUserInput'],
      ]);
    });

    it('keeps root-level transitions, ShutdownRequested among them', () => {
      const root = graph.transitions.filter((transition) => transition.source === '');
      expect(root.map((transition) => [transition.event, transition.targets])).toEqual([
        ['UserInput', []],
        ['SetPermissionMode', []],
        ['SetTools', []],
        ['ShutdownRequested', ['ShuttingDown']],
      ]);
    });

    it('lists entry and exit actions and invoked actors', () => {
      const streaming = statesByPath(graph).get('CallingLlm.Streaming');
      // What ends the call is on the transitions that leave it, so Streaming has no exit action.
      expect(streaming).toMatchObject({ entry: ['sendLlmRequest'], exit: [], invoke: ['llm'] });
    });

    it('is plain JSON', () => {
      expect(JSON.parse(JSON.stringify(graph))).toEqual(graph);
    });

    it('gives every transition branch a unique id', () => {
      const ids = graph.transitions.map((transition) => transition.id);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });

  describe('any machine', () => {
    const graph = toGraph(nestedMachine);
    const states = statesByPath(graph);

    it('nests child states under their parents, with dotted paths', () => {
      expect(states.get('Editing')?.children.map((state) => state.path)).toEqual([
        'Editing.Pristine',
        'Editing.Dirty',
        'Editing.History',
      ]);
      expect(states.get('Reviewing')?.kind).toBe('parallel');
      expect(states.get('Editing.History')).toMatchObject({ kind: 'history', history: 'deep' });
    });

    it('marks initial children, but no region of a parallel state', () => {
      expect(states.get('Editing.Pristine')?.initial).toBe(true);
      expect(states.get('Reviewing.Checks')?.initial).toBe(false);
      expect(states.get('Reviewing.Checks.Running')?.initial).toBe(true);
    });

    it('names delays, invoke results and done events as a reader expects', () => {
      const events = graph.transitions
        .filter((transition) => transition.source === 'Saving' || transition.source === 'Reviewing')
        .map((transition) => transition.label);
      expect(events).toEqual([
        'onDone(save) / assign',
        'onError(save)',
        'after 5000ms',
        'onDone',
        'always [inline guard]',
      ]);
    });

    it('hides the raise/cancel actions XState uses to implement delays', () => {
      expect(states.get('Saving')).toMatchObject({ entry: [], exit: [], invoke: ['save'] });
    });

    it('spells out or/not guards and keeps self-transitions', () => {
      const dirty = graph.transitions.filter((t) => t.source === 'Editing.Dirty');
      expect(dirty.map((t) => [t.label, t.targets, t.reenter])).toEqual([
        ['SUBMIT [isValid || !isLocked] / logSubmit', ['Saving'], false],
        ['EDIT', ['Editing.Dirty'], true],
      ]);
    });
  });
});

describe('edgeOwner', () => {
  it('is the lowest state containing both ends, or the source for an inward transition', () => {
    expect(edgeOwner('Editing.Dirty', 'Saving')).toBe('');
    expect(edgeOwner('Editing.Pristine', 'Editing.Dirty')).toBe('Editing');
    expect(edgeOwner('Editing', 'Editing.Pristine')).toBe('Editing');
    expect(edgeOwner('Editing.Dirty', 'Editing.Dirty')).toBe('Editing');
    expect(edgeOwner('Reviewing.Checks.Running', 'Reviewing')).toBe('');
    expect(edgeOwner('', 'Cancelled')).toBe('');
  });
});
