/**
 * Faults injected into the generated paths, and their replay.
 *
 * Right after a path first streams a request (`CallingLlm.Streaming`), before the model's reply,
 * the model call fails once and the retry timer fires; then the path goes on. The fault is absorbed when the agent
 * ends up exactly where the same path without the fault would be — same state, same context but
 * for the jitter generator and the bookkeeping of the last retry — which happens as soon as the
 * model call succeeds, or the next turn starts. From there the path is the unfaulted one, which
 * `pathCoverage.test.ts` replays to its end, so the faulted replay stops. With two attempts per
 * call the fault uses up the first, so a path whose own first reply was a failure now gives up
 * there: that replay goes back to rest by the walk's route and must end valid.
 */
import { isDeepStrictEqual } from 'node:util';
import { type AgentContext, type AgentEvent, agentMachine } from '../../src/index.js';
import type { ChartWalk, GeneratedPath } from './chartWalk.js';
import { MachineRun } from './machineRun.js';
import { failures } from './modelReplies.js';
import type { RunView } from './pathRun.js';
import { describeStateValue } from '../../src/machine/index.js';
import {
  concretize,
  describeEvent,
  isActorCrash,
  newCallId,
  type PathEvent,
} from './pathEvents.js';
import { Lockstep } from './replayPath.js';
import { stateKey } from './stateKey.js';

/** One fault: its name and the events that play it out. */
export interface Fault {
  name: string;
  events: readonly PathEvent[];
}

const retryFired: AgentEvent = { type: 'RetryTimeoutFired' };

/** Where a model request streams (a compaction's summary call comes before it, if at all). */
const STREAMING = 'CallingLlm.Streaming';

export const faults: readonly Fault[] = [
  { name: '429 with Retry-After', events: [failures.rateLimitedWithRetryAfter, retryFired] },
  { name: '5xx', events: [failures.serverError, retryFired] },
  {
    name: 'stream cut in the middle of a tool call',
    events: [
      { type: 'LlmTextDelta', content: 'Let me edit' },
      {
        type: 'LlmToolCallDelta',
        callId: newCallId(0),
        toolName: 'edit_file',
        argumentsFragment: '{"path":"no',
      },
      failures.streamCut,
      retryFired,
    ],
  },
];

/** How the replay of one path with a fault ended. */
export type FaultOutcome =
  | 'absorbed' // caught up with the same path without the fault
  | 'gave up' // the fault used the attempt the path's own failure needed; back to rest
  | 'ended' // the path ended before the fault was absorbed (a shutdown, say)
  | 'already checked' // its faulted prefix is one an earlier path already played out
  | 'no model call';

/**
 * Replays paths with one fault, in the reference and actor mode, remembering which faulted
 * prefixes were played out so paths that share one are not replayed again.
 *
 * @example
 * const replay = new FaultReplay(faults[0], walks);
 * const { outcome, problems } = replay.run(path);
 */
export class FaultReplay {
  readonly #fault: Fault;
  readonly #walks: Map<string, ChartWalk>;
  readonly #settled = new Set<string>();

  constructor(fault: Fault, walks: readonly ChartWalk[]) {
    this.#fault = fault;
    this.#walks = new Map(walks.map((walk) => [walk.variant.name, walk]));
  }

  run(path: GeneratedPath): { outcome: FaultOutcome; problems: string[] } {
    const prefixes = prefixKeys(path);
    if (prefixes.some((key) => this.#settled.has(key))) {
      return { outcome: 'already checked', problems: [] };
    }
    const { config } = path.variant;
    const faulted = new Lockstep(config, { modes: ['actor'] });
    // The same path without the fault, to know when the fault has been absorbed.
    const twin = new MachineRun(agentMachine, config);
    let twinInputs = 0;
    let injected = false;
    let mayGiveUp = false;
    let outcome: FaultOutcome = 'no model call';
    for (let index = 0; faulted.problems.length === 0;) {
      if (!injected && describeStateValue(faulted.reference.view().state) === STREAMING) {
        injected = true;
        for (const event of this.#fault.events) if (!faulted.step(event)) break;
        if (faulted.retriesScheduled === 0) faulted.problems.push('the fault was not retried');
        mayGiveUp = firstReplyFails(path.events.slice(index));
        continue;
      }
      if (index === path.events.length) {
        if (injected) outcome = 'ended';
        break;
      }
      const template = path.events[index]!;
      index++;
      if (!faulted.step(template, mayGiveUp)) {
        if (faulted.givenUp === 0) {
          faulted.problems.push(
            `${describeEvent(template)} was refused, yet no model call was given up`,
          );
          break;
        }
        this.#settled.add(prefixes[index - 1]!);
        outcome = 'gave up';
        this.#backToRest(faulted, path);
        break;
      }
      if (template.type === 'UserInput') twinInputs++;
      twin.send(concretize(template, twin.view().context, twinInputs));
      if (injected && sameAgent(faulted.reference.view(), twin.view())) {
        this.#settled.add(prefixes[index - 1]!);
        outcome = 'absorbed';
        break;
      }
    }
    if (faulted.problems.length === 0) faulted.finish();
    faulted.stop();
    return { outcome, problems: faulted.problems };
  }

  #backToRest(faulted: Lockstep, path: GeneratedPath): void {
    const { state, context, status } = faulted.reference.view();
    const key = stateKey({ value: state, context, status });
    const route = this.#walks.get(path.variant.name)?.routeToRest(key);
    if (route === undefined) {
      faulted.problems.push(`no way back to rest from ${key} after giving up`);
      return;
    }
    for (const event of route) if (!faulted.step(event)) return;
  }
}

/** The identity of each prefix of a path: its variant and events (the first one, two, …). */
function prefixKeys(path: GeneratedPath): string[] {
  let key = path.variant.name;
  return path.events.map((event) => (key = `${key}\n${JSON.stringify(event)}`));
}

/** Whether the path's next model answer is a failure. */
function firstReplyFails(rest: readonly PathEvent[]): boolean {
  for (const event of rest) {
    if ((isActorCrash(event) && event.actor === 'llm') || event.type === 'LlmError') return true;
    if (event.type === 'LlmCompleted') return false;
  }
  return false;
}

/**
 * Two runs are the same agent when only what a fault leaves behind differs: the jitter
 * generator's state (it only changes future delays, which are checked against their bounds)
 * and the last retry's delay and error (rewritten before they are read again).
 */
function sameAgent(a: RunView, b: RunView): boolean {
  return (
    describeStateValue(a.state) === describeStateValue(b.state) &&
    a.status === b.status &&
    isDeepStrictEqual(comparable(a.context), comparable(b.context))
  );
}

function comparable(context: AgentContext) {
  const { rngState: _rng, retryDelayMs: _delay, lastError: _error, ...rest } = context;
  return rest;
}
