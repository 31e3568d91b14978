/** Mermaid output is valid for mermaid's own parser and shows the whole chart. */
import { describe, expect, it } from 'vitest';
import { agentMachine } from '../../src/index.js';
import { toMermaid } from '../../src/diagram/toMermaid.js';
import { nestedMachine } from './fixtures/nestedMachine.js';
import { parseMermaid } from './mermaidParser.js';
import { AGENT_STATE_NAMES } from '../../src/index.js';

describe('toMermaid', () => {
  const text = toMermaid(agentMachine);

  it('is a state diagram mermaid parses', async () => {
    await expect(parseMermaid(text)).resolves.toMatchObject({ diagramType: 'stateDiagram' });
  });

  it('draws all seven states, the initial and the final marker', () => {
    for (const state of AGENT_STATE_NAMES) {
      expect(text).toMatch(new RegExp(`^  (${state} (-->|:)|state ${state} \\{$)`, 'm'));
    }
    expect(text).toContain('  [*] --> WaitingForUserInput\n');
    expect(text).toContain('  ShuttingDown --> [*]\n');
  });

  it('draws the states nested in WaitingForUserInput inside it, with its initial marker', () => {
    expect(text).toContain(
      '  state WaitingForUserInput {\n' +
        '    state "CheckingCompaction" as WaitingForUserInput_CheckingCompaction\n' +
        '    state "Compacting" as WaitingForUserInput_Compacting\n' +
        '    [*] --> Ready\n',
    );
    expect(text).toContain(
      '    SettlingCancelledCalls --> Ready : always [!toolsSettling] / answerToolCalls\n',
    );
    expect(text).toContain('    SettlingCancelledCalls : invoke toolGraceTimer\n');
    // An edge leaving the compound state is written outside it.
    expect(text).toContain('\n  Ready --> CallingLlm : UserInput / startTurn\n');
    expect(text).toContain(
      '\n  ExecutingTools --> SettlingCancelledCalls : Interrupt [toolCallsNeedGrace] / abortToolCalls\n',
    );
  });

  it('separates the regions of a parallel state, which run at once, with --', () => {
    expect(text).toMatch(
      /\n {4}state Approvals \{\n[^]*?\n {4}\}\n {4}--\n {4}state Subagents \{\n[^]*?\n {4}\}\n {4}--\n {4}state Questions \{\n/,
    );
    expect(text).toContain(
      '      ExecutingTools_Questions_Waiting : UserAnswer [answersOpenQuestions] / applyAnswer\n',
    );
  });

  it('draws the transient edges out of ProcessingLlmResponse.Deciding', () => {
    expect(text).toContain('  Deciding --> ExecutingTools : always [hasToolCalls]\n');
    expect(text).toContain(
      '  Deciding --> WaitingForUserInput : always / reportStopReason, endOutputTurn\n',
    );
    expect(text).toContain(
      '  ExecutingTools --> PostToolsHook : always [allToolsDone && anyMutatingToolSucceeded] / answerToolCalls\n',
    );
    expect(text).toContain('  Deciding --> CallingLlm : always [outputAskable] / askForOutput\n');
  });

  it('draws the waits for the hooks on a turn nested in their states, the edges out of them outside', () => {
    expect(text).toContain(
      '    Ready --> CheckingPrompt : UserInput [promptHookOn] / holdPrompt\n',
    );
    expect(text).toContain(
      '    Ready --> CheckingPrompt : always [hasQueuedInput && promptHookOn] / holdQueuedPrompt\n',
    );
    expect(text).toContain(
      '    CheckingPrompt : entry / runPromptHook\n    CheckingPrompt : invoke hook\n',
    );
    expect(text).toContain(
      '\n  CheckingPrompt --> WaitingForUserInput : UserPromptSubmitDecision [promptBlocked] / blockPrompt\n',
    );
    expect(text).toContain(
      '\n  CheckingPrompt --> CallingLlm : UserPromptSubmitDecision / startCheckedTurn\n',
    );
    expect(text).toContain(
      '  state ProcessingLlmResponse {\n    [*] --> Deciding\n    Deciding --> CheckingStop : always [stopHookDue]\n',
    );
    expect(text).toContain(
      '    CheckingStop : entry / runStopHook\n    CheckingStop : invoke hook\n',
    );
    expect(text).toContain(
      '\n  CheckingStop --> CallingLlm : StopDecision [turnContinued] / reportStopReason, continueTurn\n',
    );
    expect(text).toContain(
      '\n  CheckingStop --> WaitingForUserInput : Interrupt / cancelHook, reportStopReason, endOutputTurn\n',
    );
  });

  it('draws the compaction states nested twice, told apart by their parent, and the edges into and out of them', () => {
    expect(text).toContain(
      '  state CallingLlm {\n' +
        '    state "CheckingCompaction" as CallingLlm_CheckingCompaction\n' +
        '    state "Compacting" as CallingLlm_Compacting\n' +
        '    [*] --> Sizing\n' +
        '    Sizing --> Streaming : always [!compactionDue]\n' +
        '    Sizing --> CallingLlm_CheckingCompaction : always [preCompactHookOn] / beginCompaction\n' +
        '    Sizing --> CallingLlm_Compacting : always / beginCompaction\n',
    );
    expect(text).toContain(
      '    CallingLlm_CheckingCompaction --> Streaming : PreCompactDecision [compactionBlocked] / blockCompaction\n',
    );
    expect(text).toContain(
      '    CallingLlm_Compacting --> Streaming : LlmCompleted / compactTranscript\n',
    );
    expect(text).toContain(
      '    Ready --> WaitingForUserInput_Compacting : Compact / beginRequestedCompaction\n',
    );
    expect(text).toContain(
      '    WaitingForUserInput_Compacting --> Ready : LlmError / failCompaction\n',
    );
    // What a summary call streams is taken and dropped, so it is listed under the state.
    expect(text).toContain(
      '    WaitingForUserInput_Compacting : invoke llm\n    WaitingForUserInput_Compacting : LlmStarted\n',
    );
    expect(text).toContain('    Ready : Compact [!compactable] / reportNothingToCompact\n');
    expect(text).toContain(
      '\n  CallingLlm_Compacting --> WaitingForUserInput : Interrupt / abandonCompaction\n',
    );
    expect(text).toContain(
      '\n  WaitingForUserInput_CheckingCompaction --> ShuttingDown : ShutdownRequested / abandonCompactionCheck\n',
    );
  });

  it('draws the root-level ShutdownRequested once, from an "any state" node; the others carry what they do', () => {
    expect(text).toContain('  state "any state" as anyState\n');
    expect(text).toContain('  anyState --> ShuttingDown : ShutdownRequested\n');
    const shutdowns = text.split('\n').filter((line) => line.includes(': ShutdownRequested'));
    expect(shutdowns.filter((line) => !line.includes(' / '))).toEqual([
      '  anyState --> ShuttingDown : ShutdownRequested',
    ]);
    // A state with work in flight ends it on the way out (in place of an exit action).
    expect(shutdowns).toContain(
      '  Streaming --> ShuttingDown : ShutdownRequested / keepStreamedText',
    );
  });

  it('lists what a state does without leaving it, under its name', () => {
    expect(text).toContain('    Streaming : Streaming\n    Streaming : entry / sendLlmRequest\n');
    expect(text).toContain('    Streaming : LlmTextDelta / appendStreamedText, showStreamedText\n');
    expect(toMermaid(agentMachine, { details: false })).not.toContain('entry /');
  });

  it('draws nested, parallel and history states of any machine, validly', async () => {
    const nested = toMermaid(nestedMachine, { direction: 'LR' });
    await expect(parseMermaid(nested)).resolves.toBeDefined();
    expect(nested).toContain('  state Editing {\n    History : H*\n    [*] --> Pristine\n');
    expect(nested).toContain('    Editing_anyState --> Pristine : RESET\n');
    // An edge leaving a compound state is written outside it, or Mermaid would pull its
    // target inside.
    expect(nested).toContain('\n  Dirty --> Saving : SUBMIT [isValid || !isLocked] / logSubmit\n');
  });

  it('fails validation for broken text (the parser really checks)', async () => {
    await expect(parseMermaid('stateDiagram-v2\n  A --> : x\n')).rejects.toThrow(/Parse error/);
  });

  it('is deterministic', () => {
    expect(toMermaid(agentMachine)).toBe(text);
  });
});
