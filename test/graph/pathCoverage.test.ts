/**
 * The chart writes its own tests: `xstate/graph` walks it, every generated path is replayed in
 * pure mode and in actor mode beside XState's own `transition()`, and coverage is measured
 * against the machine definition. Prints the one coverage line of `npm test`.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ACTOR_NAMES } from '../../src/machine/index.js';
import { type ChartCheck, checkChart, describeFailures } from './checkChart.js';
import { coverageLine } from './coverage.js';

let check: ChartCheck;

// Walking and replaying every variant takes about 25 s on two idle cores; the limit only
// catches a hang, with room for a machine busy with other test runs.
beforeAll(() => {
  check = checkChart();
}, 180_000);

describe('paths generated from the chart', () => {
  it('keep the rules of DESIGN section 4 at every step, and pure and actor mode pass through the same states with the same actions', () => {
    expect(check.paths.length).toBeGreaterThan(0);
    expect(describeFailures(check.failures)).toEqual([]);
  });

  it('cover every state and every transition of the machine definition', () => {
    console.log(coverageLine(check.coverage, check.paths.length));
    expect(check.coverage.states.missing).toEqual([]);
    expect(check.coverage.transitions.missing).toEqual([]);
  });

  it('take, in each nested state, every event it handles, those its parent and the root handle included', () => {
    const settling = 'WaitingForUserInput.SettlingCancelledCalls';
    const expected = [
      `${settling} ToolCompleted`,
      `${settling} ToolGraceExpired`,
      `${settling} Resume`,
      `${settling} UserInput`,
      `${settling} ShutdownRequested`,
      `${settling} SetTools`,
      `${settling} crash(tool)`,
      `${settling} crash(toolGraceTimer)`,
      `${settling} crash(subagent)`,
      'WaitingForUserInput.Ready UserInput',
      'WaitingForUserInput.Ready ShutdownRequested',
      'WaitingForUserInput.Ready SetPermissionMode',
      'WaitingForUserInput.Ready SetTools',
      'WaitingForUserInput.Ready Compact',
    ];
    // Each wait of ExecutingTools, alone and both at once, takes its answer and every way out.
    const region = (approvals: string, questions: string) =>
      `ExecutingTools (Hooks.Idle, Approvals.${approvals}, Subagents.Idle, Questions.${questions})`;
    for (const [where, answers] of [
      [region('Waiting', 'Idle'), ['ToolApproval']],
      [region('Idle', 'Waiting'), ['UserAnswer']],
      [region('Waiting', 'Waiting'), ['ToolApproval', 'UserAnswer']],
    ] as const) {
      for (const event of [...answers, 'Interrupt', 'ShutdownRequested', 'Resume', 'UserInput']) {
        expected.push(`${where} ${event}`);
      }
    }
    const hooking =
      'ExecutingTools (Hooks.Running, Approvals.Idle, Subagents.Idle, Questions.Idle)';
    for (const event of [
      'PreToolUseDecision',
      'PostToolUseResult',
      'crash(hook)',
      'Interrupt',
      'ShutdownRequested',
      'Resume',
      'UserInput',
    ]) {
      expected.push(`${hooking} ${event}`);
    }
    // A task call's subagent at work takes its answer (with what it used), its actor's failure
    // and every way out.
    const delegating =
      'ExecutingTools (Hooks.Idle, Approvals.Idle, Subagents.Running, Questions.Idle)';
    for (const event of [
      'ToolCompleted',
      'crash(subagent)',
      'Interrupt',
      'ShutdownRequested',
      'Resume',
      'UserInput',
    ]) {
      expected.push(`${delegating} ${event}`);
    }
    // The hooks on a turn, each in a wait of its own, take every answer and every way out.
    for (const [where, answer] of [
      ['WaitingForUserInput.CheckingPrompt', 'UserPromptSubmitDecision'],
      ['ProcessingLlmResponse.CheckingStop', 'StopDecision'],
    ] as const) {
      for (const event of [
        answer,
        'crash(hook)',
        'Interrupt',
        'ShutdownRequested',
        'Resume',
        'UserInput',
      ]) {
        expected.push(`${where} ${event}`);
      }
    }
    // Each wait of a compaction, before a request and asked for between turns, takes its
    // answer, its actor's failure and every way out; the summary call's stream is dropped.
    const ways = ['Interrupt', 'ShutdownRequested', 'Resume', 'UserInput'];
    for (const within of ['CallingLlm', 'WaitingForUserInput']) {
      for (const event of ['PreCompactDecision', 'crash(hook)', ...ways]) {
        expected.push(`${within}.CheckingCompaction ${event}`);
      }
      const summaryCall = ['LlmCompleted', 'LlmError', 'crash(llm)'];
      const dropped = ['LlmStarted', 'LlmTextDelta', 'LlmToolCallDelta'];
      for (const event of [...summaryCall, ...dropped, ...ways]) {
        expected.push(`${within}.Compacting ${event}`);
      }
    }
    expect(expected.filter((taken) => !check.recorder.taken.has(taken))).toEqual([]);
  });

  it('make every actor of the chart crash, each failure taken as the event that stands for it', () => {
    const crashes = [...check.recorder.taken].flatMap((taken) => {
      const match = /crash\((\w+)\)$/.exec(taken);
      return match?.[1] === undefined ? [] : [match[1]];
    });
    expect([...new Set(crashes)].sort()).toEqual([...AGENT_ACTOR_NAMES].sort());
  });

  it('reach no state from which a turn cannot finish without an interrupt, a shutdown or a crash', () => {
    expect(check.stuck).toEqual([]);
  });
});
