/**
 * Replays generated paths in lockstep: the reference run (XState's `transition()`, which also
 * records coverage), pure mode and actor mode. Each event is made concrete once, against the
 * reference, then sent to every run; after each step the runs must agree on the state, the
 * states passed through, the status, the actions and the context, and the reference must keep
 * the rules of DESIGN section 4.
 */
import { isDeepStrictEqual } from 'node:util';
import {
  type AgentConfig,
  AgentCore,
  type AgentMachine,
  type AgentSnapshot,
  agentMachine,
} from '../../src/index.js';
import { describeStateValue, topStateOf } from '../../src/machine/index.js';
import { placeOf } from './stateKey.js';
import { ActorRun } from './actorRun.js';
import type { GeneratedPath } from './chartWalk.js';
import { CoreRun } from './coreRun.js';
import type { CoverageRecorder } from './coverage.js';
import { MachineRun } from './machineRun.js';
import type { PathRun, RunView, StepResult } from './pathRun.js';
import {
  type ActorCrashEvent,
  concretize,
  describeEvent,
  isActorCrash,
  type PathEvent,
  toChartEvent,
} from './pathEvents.js';
import { SectionFourLedger } from './sectionFourRules.js';

export interface ReplayOptions {
  /** The machine to run (the agent machine unless a test passes a changed copy). */
  machine?: AgentMachine;
  recorder?: CoverageRecorder;
  /** The modes to run beside the reference and compare with it. Default: both. */
  modes?: ReadonlyArray<'pure' | 'actor'>;
}

/**
 * The reference, pure mode and actor mode, fed the same events one at a time.
 *
 * @example
 * const lockstep = new Lockstep(config);
 * for (const event of path.events) if (!lockstep.step(event)) break;
 * lockstep.problems; // [] when every step kept the rules and the modes agreed
 */
export class Lockstep {
  readonly reference: MachineRun;
  /** Everything that went wrong so far, as sentences. */
  readonly problems: string[] = [];
  /** How many retries the chart scheduled (`ScheduleRetry`). */
  retriesScheduled = 0;
  /** How many model-request failures the chart gave up on (no `ScheduleRetry`). */
  givenUp = 0;
  /** How many user messages were sent (they are numbered, to be found again). */
  inputs = 0;
  readonly #runs: PathRun[];
  readonly #core: CoreRun | undefined;
  readonly #ledger: SectionFourLedger;
  readonly #recorder: CoverageRecorder | undefined;
  #steps = 0;

  constructor(config: AgentConfig, options: ReplayOptions = {}) {
    const machine = options.machine ?? agentMachine;
    const modes = options.modes ?? ['pure', 'actor'];
    this.reference = new MachineRun(machine, config, options.recorder);
    this.#recorder = options.recorder;
    this.#core = modes.includes('pure') ? new CoreRun(config) : undefined;
    const actor = modes.includes('actor') ? new ActorRun(machine, config) : undefined;
    this.#runs = [this.#core, actor].filter((run) => run !== undefined);
    this.#ledger = new SectionFourLedger(config);
    if (
      actor !== undefined &&
      !isDeepStrictEqual(actor.initialActions, this.reference.initialActions)
    ) {
      this.problems.push(
        `starting: actor mode emitted ${JSON.stringify(actor.initialActions)}, expected ${JSON.stringify(this.reference.initialActions)}`,
      );
    }
  }

  /**
   * Sends one event template to every run. Returns whether the chart took it (or dropped it by
   * design, see `dropsByDesign`); an event it does not take is a problem unless `mayBeRefused`.
   */
  step(template: PathEvent, mayBeRefused = false): boolean {
    const before = this.reference.view();
    if (template.type === 'UserInput') this.inputs++;
    const event = concretize(template, before.context, this.inputs);
    const label = `step ${++this.#steps} ${describeEvent(event)} in ${describeStateValue(before.state)}`;
    // A crash of an actor that is not running cannot happen (a fault may have moved the path on).
    if (isActorCrash(event) && !crashTargetRuns(event, before)) {
      if (!mayBeRefused) this.problems.push(`${label}: no such actor is running`);
      return false;
    }
    const expected = this.reference.send(event);
    for (const problem of this.reference.takeProblems()) this.problems.push(`${label}: ${problem}`);
    const dropped = dropsByDesign(event, before);
    if (dropped && expected.accepted) {
      this.problems.push(`${label}: the chart took what it should drop`);
    }
    if (!expected.accepted && !dropped) {
      if (!mayBeRefused) this.problems.push(`${label}: the chart did not take the event`);
      return false;
    }
    // What the chart took: the event, or for a crash the event that stands for the failure.
    const taken = toChartEvent(event, before.context);
    this.#recorder?.recordTaken(
      describeStateValue(before.state),
      isActorCrash(event) ? `crash(${event.actor})` : event.type,
    );
    for (const problem of this.#ledger.afterStep(before, taken, expected)) {
      this.problems.push(`${label}: ${problem}`);
    }
    const retries = expected.actions.filter((action) => action.type === 'ScheduleRetry').length;
    this.retriesScheduled += retries;
    // A failed summary call gives up on the compaction, not on the model request.
    const streaming = describeStateValue(before.state) === 'CallingLlm.Streaming';
    if (retries === 0 && taken.type === 'LlmError' && streaming) this.givenUp++;
    for (const run of this.#runs) {
      const actual = run.send(event, dropped);
      this.problems.push(...compareSteps(label, run, actual, expected));
      for (const problem of run.takeProblems())
        this.problems.push(`${label}: ${run.mode}: ${problem}`);
    }
    return true;
  }

  /** The checks of a path's end, on where the reference stands now. */
  finish(): void {
    const final = this.reference.view();
    this.problems.push(...this.#ledger.atEnd(final).map((problem) => `at the end: ${problem}`));
  }

  stop(): void {
    for (const run of this.#runs) run.stop();
  }
}

/**
 * Replays `path`, stopping at the first step with a problem, and checks at the end that a
 * stored agent (`snapshot()` through JSON) comes back as it was.
 *
 * @example
 * const { problems } = replayPath(path, { recorder });
 * expect(problems).toEqual([]);
 */
export function replayPath(
  path: GeneratedPath,
  options: ReplayOptions = {},
): { problems: string[] } {
  const lockstep = new Lockstep(path.variant.config, options);
  for (const template of path.events) {
    if (!lockstep.step(template) || lockstep.problems.length > 0) break;
  }
  if (lockstep.problems.length === 0) {
    lockstep.finish();
    lockstep.problems.push(...restoreProblems(lockstep.reference.view(), path));
  }
  lockstep.stop();
  return { problems: lockstep.problems };
}

const lastConfigs = new WeakMap<PathRun, unknown>();

/** Where `run` disagrees with the reference after one step, as sentences. */
function compareSteps(
  label: string,
  run: PathRun,
  actual: StepResult,
  expected: StepResult,
): string[] {
  const problems: string[] = [];
  const where = `${label}: ${run.mode}`;
  if (actual.accepted !== expected.accepted) {
    problems.push(`${where} ${actual.accepted ? 'took' : 'refused'} the event`);
  }
  const actualState = describeStateValue(actual.state);
  const expectedState = describeStateValue(expected.state);
  if (actualState !== expectedState || actual.status !== expected.status) {
    problems.push(
      `${where} is in ${actualState} (${actual.status}), expected ${expectedState} (${expected.status})`,
    );
  }
  if (
    actual.passedThrough !== undefined &&
    !isDeepStrictEqual(actual.passedThrough, expected.passedThrough)
  ) {
    problems.push(
      `${where} passed through ${actual.passedThrough.join(' → ')}, expected ${expected.passedThrough?.join(' → ')}`,
    );
  }
  if (!isDeepStrictEqual(actual.actions, expected.actions)) {
    problems.push(
      `${where} emitted ${JSON.stringify(actual.actions)}, expected ${JSON.stringify(expected.actions)}`,
    );
  }
  // The config is resolved once per run and never changes; comparing the rest is cheaper.
  const { config: actualConfig, ...actualRest } = actual.context;
  const { config: expectedConfig, ...expectedRest } = expected.context;
  if (!isDeepStrictEqual(actualRest, expectedRest))
    problems.push(`${where} has a different context`);
  if (actualConfig !== lastConfigs.get(run) && !isDeepStrictEqual(actualConfig, expectedConfig)) {
    problems.push(`${where} runs with a different config`);
  }
  lastConfigs.set(run, actualConfig);
  return problems;
}

/**
 * A stored agent (`snapshot()` through JSON, which names the top-level state) comes back as it
 * was, in the same nested state.
 */
function restoreProblems(final: RunView, path: GeneratedPath): string[] {
  const stored = JSON.stringify({
    version: 1,
    state: topStateOf(final.state),
    context: final.context,
  });
  const restored = AgentCore.fromSnapshot(JSON.parse(stored) as AgentSnapshot, path.variant.config);
  // Compared as JSON: a restored context may spell an absent member as `undefined`.
  if (
    describeStateValue(restored.stateValue) !== describeStateValue(final.state) ||
    JSON.stringify(restored.context) !== JSON.stringify(final.context)
  ) {
    return ['at the end: the JSON snapshot does not restore the same agent'];
  }
  return [];
}

/**
 * Whether the chart drops `event` where the agent stands, by design: what a compaction's summary
 * call streams (only the whole summary counts). Its transitions are XState's forbidden ones,
 * which take the event and do nothing, so they are covered and yet refused.
 */
function dropsByDesign(event: PathEvent, view: RunView): boolean {
  return (
    (event.type === 'LlmStarted' ||
      event.type === 'LlmTextDelta' ||
      event.type === 'LlmToolCallDelta') &&
    describeStateValue(view.state).endsWith('.Compacting')
  );
}

/** Whether the actor a crash names is running where the agent stands. */
function crashTargetRuns(event: ActorCrashEvent, view: RunView): boolean {
  const state = placeOf(view.state);
  const runs = (status: string) =>
    view.context.toolRuns.some((run) => run.call.id === event.callId && run.status === status);
  switch (event.actor) {
    case 'llm':
      return (
        state === 'CallingLlm.Streaming' ||
        state === 'CallingLlm.Compacting' ||
        state === 'WaitingForUserInput.Compacting'
      );
    case 'retryTimer':
      return state === 'Error';
    case 'postToolsHook':
      return state === 'PostToolsHook';
    case 'toolGraceTimer':
      return state === 'WaitingForUserInput.SettlingCancelledCalls';
    case 'tool':
    case 'subagent':
      return (
        (state === 'ExecutingTools' && runs('running')) ||
        (state === 'WaitingForUserInput.SettlingCancelledCalls' && runs('cancelling'))
      );
    case 'hook':
      if (event.turnHook === 'promptHook') return state === 'WaitingForUserInput.CheckingPrompt';
      if (event.turnHook === 'stopHook') return state === 'ProcessingLlmResponse.CheckingStop';
      if (event.turnHook === 'preCompactHook') {
        return (
          state === 'CallingLlm.CheckingCompaction' ||
          state === 'WaitingForUserInput.CheckingCompaction'
        );
      }
      return state === 'ExecutingTools' && (runs('preHook') || runs('postHook'));
  }
}
