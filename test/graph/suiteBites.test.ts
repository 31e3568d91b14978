/**
 * The generated suite must fail when the chart breaks. These tests break copies of the chart
 * (nothing in `src/` changes) and expect the suite's own checks to report it:
 *
 * - a transition deleted, or made impossible to take: `checkChart` reports it uncovered, fails
 *   the paths that needed it, and finds the turns it leaves stuck;
 * - one rule of DESIGN section 4 broken through `provide`: replaying the generated paths
 *   reports that rule.
 *
 * The open variant alone reaches everything broken here but the hooks on a turn, which the
 * `turnHooks` variant reaches, and compaction, which the `compaction` and `preCompactHook`
 * variants reach; the reference run alone is replayed, since pure and actor mode would only
 * repeat what it reports, except for what only actor mode sees (a hook or a call left running).
 */
import { assign, emit, enqueueActions } from 'xstate';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AgentMachine, agentMachine } from '../../src/index.js';
import { SUMMARY_HEADING } from '../../src/machine/index.js';
import { type GeneratedPath, walkChart } from './chartWalk.js';
import { type ChartCheck, checkChart } from './checkChart.js';
import { coverageOf, listTransitions } from './coverage.js';
import { withoutTransition, withTarget } from './mutateChart.js';
import { replayPath } from './replayPath.js';
import {
  compactionVariant,
  openVariant,
  preCompactHookVariant,
  turnHooksVariant,
} from './variants.js';

const HOOK_COMPLETED = [
  'PostToolsHook PostToolsHookCompleted [outputSettled] → WaitingForUserInput',
  'PostToolsHook PostToolsHookCompleted [limitReached] → WaitingForUserInput',
  'PostToolsHook PostToolsHookCompleted → CallingLlm',
];
const TO_TOOLS = 'ProcessingLlmResponse.Deciding always [hasToolCalls] → ExecutingTools';

const transitionIds = (machine: AgentMachine) => listTransitions(machine).map(({ id }) => id);

describe('the generated suite, on a chart without the transitions of PostToolsHook on PostToolsHookCompleted', () => {
  let broken: AgentMachine;
  let check: ChartCheck;
  let intact: ChartCheck;

  beforeAll(() => {
    broken = withoutTransition(agentMachine, 'PostToolsHook', 'PostToolsHookCompleted');
    check = checkChart(broken, { modes: [], variants: [openVariant] });
    intact = checkChart(agentMachine, { modes: [], variants: [openVariant] });
  }, 60_000);

  it('runs on a copy that lacks exactly those transitions', () => {
    const kept = new Set(transitionIds(broken));
    expect(transitionIds(agentMachine).filter((id) => !kept.has(id))).toEqual(HOOK_COMPLETED);
  });

  it('reports those transitions uncovered when the runs are measured against the real chart', () => {
    // The open variant leaves the permission and limit transitions to the other walks, on any
    // chart (the limit's way out of PostToolsHook among them).
    const alwaysMissing = new Set(intact.coverage.transitions.missing);
    const missing = coverageOf(agentMachine, check.recorder).transitions.missing;
    expect(missing.filter((id) => !alwaysMissing.has(id))).toEqual([
      'PostToolsHook PostToolsHookCompleted → CallingLlm',
    ]);
  });

  it('fails the paths that send PostToolsHookCompleted, which the chart no longer takes', () => {
    const rejected = check.failures.filter(({ problems }) =>
      problems.some((problem) => /PostToolsHookCompleted.*did not take the event/.test(problem)),
    );
    expect(rejected.length).toBeGreaterThan(0);
  });

  it('finds turns that only an interrupt, a shutdown or a crash can get out of PostToolsHook', () => {
    expect(check.stuck.filter((key) => key.includes('"state":"PostToolsHook"'))).not.toEqual([]);
  });
});

describe('the generated suite, on a chart whose responses never count as having tool calls', () => {
  let check: ChartCheck;

  beforeAll(() => {
    const broken = agentMachine.provide({ guards: { hasToolCalls: () => false } });
    check = checkChart(broken, { modes: [], variants: [openVariant] });
  }, 60_000);

  it('reports the transition to ExecutingTools, which no path can take any more, uncovered', () => {
    expect(check.coverage.transitions.missing).toContain(TO_TOOLS);
    expect(check.coverage.transitions.covered).toBeLessThan(check.coverage.transitions.total);
  });

  it('fails the paths whose tool calls are left without results', () => {
    const unanswered = check.failures.filter(({ problems }) =>
      problems.some((problem) => problem.includes('has no tool_result')),
    );
    expect(unanswered.length).toBeGreaterThan(0);
  });
});

describe('the generated suite, on a chart whose interrupts never wait for the calls they abort', () => {
  let check: ChartCheck;

  beforeAll(() => {
    const broken = agentMachine.provide({ guards: { toolCallsNeedGrace: () => false } });
    check = checkChart(broken, { modes: [], variants: [openVariant] });
  }, 60_000);

  it('reports the nested state SettlingCancelledCalls and the transitions into and out of it uncovered', () => {
    // The waits for a person, for the caller's hooks and for subagents are uncovered too (the
    // open variant asks nothing of anyone), and so is compaction (its requests stay far below the threshold).
    expect(check.coverage.states.missing).toEqual([
      'agent.WaitingForUserInput.CheckingCompaction',
      'agent.WaitingForUserInput.Compacting',
      'agent.WaitingForUserInput.CheckingPrompt',
      'agent.WaitingForUserInput.SettlingCancelledCalls',
      'agent.CallingLlm.CheckingCompaction',
      'agent.CallingLlm.Compacting',
      'agent.ProcessingLlmResponse.CheckingStop',
      'agent.ExecutingTools.Hooks.Running',
      'agent.ExecutingTools.Approvals.Waiting',
      'agent.ExecutingTools.Subagents.Running',
      'agent.ExecutingTools.Questions.Waiting',
    ]);
    expect(check.coverage.transitions.missing).toEqual(
      expect.arrayContaining([
        'ExecutingTools Interrupt [toolCallsNeedGrace] → WaitingForUserInput.SettlingCancelledCalls',
        'WaitingForUserInput.SettlingCancelledCalls always [not(toolsSettling)] → WaitingForUserInput.Ready',
      ]),
    );
  });
});

let paths: GeneratedPath[];
let turnHookPaths: GeneratedPath[];
let compactionPaths: GeneratedPath[];
let preCompactHookPaths: GeneratedPath[];

beforeAll(() => {
  paths = walkChart(openVariant).paths;
  turnHookPaths = walkChart(turnHooksVariant).paths;
  compactionPaths = walkChart(compactionVariant).paths;
  preCompactHookPaths = walkChart(preCompactHookVariant).paths;
}, 60_000);

/**
 * The first problem matching `pattern` that replaying the paths (the open variant's unless
 * told) on `machine` reports, in the reference alone unless told.
 */
function firstProblem(
  machine: AgentMachine,
  pattern: RegExp,
  options: { paths?: GeneratedPath[]; modes?: ReadonlyArray<'pure' | 'actor'> } = {},
): string | undefined {
  for (const path of options.paths ?? paths) {
    const { problems } = replayPath(path, { machine, modes: options.modes ?? [] });
    const found = problems.find((problem) => pattern.test(problem));
    if (found !== undefined) return found;
  }
  return undefined;
}

describe('the section 4 checks, on a chart that breaks one rule', () => {
  it('report an interrupt that drops the streamed text (transcript integrity)', () => {
    const broken = agentMachine.provide({
      actions: { keepStreamedText: assign({ streamingText: '', streamingToolCalls: [] }) },
    });
    expect(firstProblem(broken, /Interrupt dropped the streamed text/)).toBeDefined();
  });

  it('report an attempt whose start keeps what an earlier attempt streamed (no text twice)', () => {
    const broken = agentMachine.provide({ actions: { clearStream: assign({}) } });
    expect(firstProblem(broken, /but this attempt streamed/)).toBeDefined();
  });

  it('report a chart that stops waiting for aborted calls before they are answered', () => {
    const broken = agentMachine.provide({ guards: { toolsSettling: () => false } });
    expect(
      firstProblem(broken, /calls are waited for in WaitingForUserInput\.Ready/),
    ).toBeDefined();
  });

  it('report input typed during a turn that never arrives (nothing lost)', () => {
    const broken = agentMachine.provide({ actions: { enqueueInput: assign({}) } });
    expect(firstProblem(broken, /user input .* was lost/)).toBeDefined();
  });

  it('report a shutdown that does not list the queued input as discarded (nothing lost)', () => {
    const broken = agentMachine.provide({
      actions: { announceShutdown: emit({ type: 'Shutdown', discardedInput: [] }) },
    });
    expect(firstProblem(broken, /report exactly the queued input as discarded/)).toBeDefined();
  });

  it('report a retry sooner than Retry-After (bounded)', () => {
    const broken = agentMachine.provide({
      actions: {
        recordRetryableError: assign(({ context }) => ({
          retries: context.retries + 1,
          retryDelayMs: 150,
        })),
      },
    });
    expect(firstProblem(broken, /ignores Retry-After/)).toBeDefined();
  });

  it('report a streaming delta that copies the transcript (cheap per event)', () => {
    const broken = agentMachine.provide({
      actions: {
        appendStreamedText: assign(({ context, event }) => ({
          streamingText:
            context.streamingText + (event.type === 'LlmTextDelta' ? event.content : ''),
          messages: [...context.messages],
        })),
      },
    });
    expect(firstProblem(broken, /a delta copied the messages/)).toBeDefined();
  });

  it('report a context that is not plain JSON (serialisable)', () => {
    // An `Error` that also has a `kind` passes for an `LlmError` in the types, not in JSON.
    const lastError = () => Object.assign(new Error('not JSON'), { kind: 'unknown' as const });
    const broken = agentMachine.provide({ actions: { startTurn: assign({ lastError }) } });
    expect(firstProblem(broken, /not plain JSON/)).toBeDefined();
  });
  it('report a prompt an interrupt withdraws without handing it back (nothing lost)', () => {
    const broken = agentMachine.provide({
      actions: {
        withdrawPrompt: enqueueActions(({ context, enqueue }) => {
          enqueue.assign({ queue: context.queue.slice(1) });
          enqueue.emit({ type: 'Cancel', hook: true });
        }),
      },
    });
    expect(firstProblem(broken, /user input .* was lost/, { paths: turnHookPaths })).toBeDefined();
  });

  it('report a prompt withdrawn with its hook left running (actor mode)', () => {
    const broken = agentMachine.provide({
      actions: {
        withdrawPrompt: enqueueActions(({ context, enqueue }) => {
          const [prompt, ...rest] = context.queue;
          enqueue.assign({ queue: rest });
          if (prompt !== undefined) {
            enqueue.emit({ type: 'PromptDropped', prompt, reason: 'interrupted' });
          }
        }),
      },
    });
    expect(
      firstProblem(broken, /Interrupt stopped 'promptHook' without a Cancel naming it/, {
        paths: turnHookPaths,
        modes: ['actor'],
      }),
    ).toBeDefined();
  });

  it('report a compaction asked for when there is nothing older than the latest exchange (transcript integrity)', () => {
    const broken = agentMachine.provide({ guards: { compactable: () => true } });
    expect(
      firstProblem(broken, /nothing older than the latest exchange/, { paths: compactionPaths }),
    ).toBeDefined();
  });

  it('report a compaction that keeps a tool_result without its tool_use (transcript integrity)', () => {
    // The summary replaces the assistant message the cut should have kept.
    const broken = agentMachine.provide({
      actions: {
        compactTranscript: enqueueActions(({ context, event, enqueue }) => {
          if (event.type !== 'LlmCompleted') return;
          const kept = context.messages.slice(-1);
          const summary = { type: 'text' as const, text: `${SUMMARY_HEADING}\n\nshort` };
          enqueue.assign({
            messages: [{ role: 'user', content: [summary] }, ...kept],
            window: { ...context.window, compacting: null, measured: null },
          });
          enqueue.emit({
            type: 'Compacted',
            trigger: context.window.compacting?.trigger ?? 'auto',
            summary: 'short',
            summarised: context.messages.length - 1,
            kept: 1,
          });
        }),
      },
    });
    expect(
      firstProblem(broken, /SendLlmRequest .* tool_result for '\w+' answers no tool_use/, {
        paths: compactionPaths,
      }),
    ).toBeDefined();
  });

  it('report a failed summary call the user is not told about (errors become state)', () => {
    const broken = agentMachine.provide({
      actions: {
        failCompaction: enqueueActions(({ context, enqueue }) => {
          enqueue.assign({ window: { ...context.window, compacting: null } });
          enqueue.emit({ type: 'CompactionSkipped', trigger: 'auto', reason: 'failed' });
        }),
      },
    });
    expect(
      firstProblem(broken, /failed summary call ended without/, { paths: compactionPaths }),
    ).toBeDefined();
  });

  it('report a compaction whose state the context does not record, so a stored agent would resume elsewhere (serialisable)', () => {
    const broken = agentMachine.provide({ actions: { beginCompaction: assign({}) } });
    expect(
      firstProblem(broken, /CallingLlm\.Compacting with null underway/, {
        paths: compactionPaths,
      }),
    ).toBeDefined();
  });

  it('report a vetoed compaction asked about again instead of sending the request (bounded)', () => {
    const broken = withTarget(
      agentMachine,
      ['CallingLlm', 'CheckingCompaction'],
      'PreCompactDecision',
      0,
      'Sizing',
    );
    expect(
      firstProblem(broken, /the request did not go out/, { paths: preCompactHookPaths }),
    ).toBeDefined();
  });

  it('report a compaction abandoned with its summary call left running (actor mode)', () => {
    const broken = agentMachine.provide({
      actions: {
        abandonCompaction: assign(({ context }) => ({
          window: { ...context.window, compacting: null },
        })),
      },
    });
    expect(
      firstProblem(broken, /Interrupt stopped 'llm' without a Cancel naming it/, {
        paths: compactionPaths,
        modes: ['actor'],
      }),
    ).toBeDefined();
  });

  it('report a stop hook that can keep a turn going more than once (bounded)', () => {
    const broken = agentMachine.provide({
      guards: { stopHookDue: ({ context }) => context.config.hooks.stop },
    });
    expect(
      firstProblem(broken, /stop hook was asked again/, { paths: turnHookPaths }),
    ).toBeDefined();
  });
});
