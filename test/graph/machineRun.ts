/**
 * The reference run: the machine driven through XState's pure `transition()` with an actor
 * scope that collects emitted actions and reports every microstep to a coverage recorder. It
 * takes every path event (an actor crash as the event that stands for the actor's failure), so
 * it is what pure and actor mode are compared with, and what coverage is measured on.
 */
import { type AnyActorRef, createActor } from 'xstate';
import type { AgentAction, AgentConfig, AgentMachine } from '../../src/index.js';
import type { ChartScope, ChartSnapshot } from './chartWalk.js';
import { collectingScope } from '../../src/machine/agentCore.js';
import { type CoverageRecorder, stateName } from './coverage.js';
import type { PathRun, RunView, StepResult } from './pathRun.js';
import { type PathEvent, toChartEvent } from './pathEvents.js';

export class MachineRun implements PathRun {
  readonly mode = 'XState transition()';
  /** The actions of entering the initial state. */
  readonly initialActions: AgentAction[];
  #snapshot: ChartSnapshot;
  readonly #machine: AgentMachine;
  readonly #scope: ChartScope;
  readonly #collected: AgentAction[] = [];
  readonly #passedThrough: string[] = [];
  #problems: string[] = [];

  constructor(machine: AgentMachine, config: AgentConfig, recorder?: CoverageRecorder) {
    this.#machine = machine;
    // An actor that is never started: it only lends its system, which feeds `inspect`.
    const owner: { ref?: AnyActorRef } = {};
    const self = createActor(machine, {
      input: { config },
      inspect: (event) => {
        if (event.actorRef !== owner.ref || event.type !== '@xstate.microstep') return;
        recorder?.record(event);
        this.#passedThrough.push(stateName(event.snapshot));
      },
    });
    owner.ref = self;
    this.#scope = collectingScope(self, (action) => this.#collected.push(action));
    this.#snapshot = machine.getInitialSnapshot(this.#scope, { config });
    recorder?.recordSnapshot(this.#snapshot);
    this.initialActions = this.#collected.splice(0);
    this.#passedThrough.length = 0;
  }

  view(): RunView {
    const { value, status, context } = this.#snapshot;
    return { state: value, status, context };
  }

  send(event: PathEvent): StepResult {
    const before = this.#snapshot;
    const chartEvent = toChartEvent(event, before.context);
    // XState's own answer to whether a transition of this state takes the event: the same
    // question admission asks in pure mode and on the agent's handle.
    const accepted = before.can(chartEvent);
    this.#snapshot = this.#machine.transition(before, chartEvent, this.#scope);
    const actions = this.#collected.splice(0);
    if (!accepted && (this.#snapshot !== before || actions.length > 0)) {
      this.#problems.push(`${chartEvent.type} changed the agent though no transition takes it`);
    }
    return {
      ...this.view(),
      accepted,
      actions,
      passedThrough: this.#passedThrough.splice(0),
    };
  }

  takeProblems(): string[] {
    const problems = this.#problems;
    this.#problems = [];
    return problems;
  }

  stop(): void {}
}
