/**
 * Pure mode: `AgentCore.handleEvent(event) → actions`. Pure mode has no actors of its own: a
 * caller whose actor throws gives the chart the event that stands for the failure, which is what
 * this run is fed for a crash.
 */
import { type AgentConfig, AgentCore, type AgentDiagnostic } from '../../src/index.js';
import type { PathRun, RunView, StepResult } from './pathRun.js';
import { type PathEvent, toChartEvent } from './pathEvents.js';

export class CoreRun implements PathRun {
  readonly mode = 'pure mode (AgentCore)';
  readonly #core: AgentCore;
  readonly #diagnostics: AgentDiagnostic[] = [];
  #problems: string[] = [];

  constructor(config: AgentConfig) {
    this.#core = new AgentCore(config, {
      onDiagnostic: (diagnostic) => this.#diagnostics.push(diagnostic),
    });
  }

  view(): RunView {
    return {
      state: this.#core.stateValue,
      status: this.#core.done ? 'done' : 'active',
      context: this.#core.context,
    };
  }

  send(event: PathEvent): StepResult {
    this.#diagnostics.length = 0;
    const actions = this.#core.handleEvent(toChartEvent(event, this.#core.context));
    for (const diagnostic of this.#diagnostics) {
      this.#problems.push(`reported ${diagnostic.code}: ${diagnostic.message}`);
    }
    return { ...this.view(), accepted: this.#diagnostics.length === 0, actions };
  }

  takeProblems(): string[] {
    const problems = this.#problems;
    this.#problems = [];
    return problems;
  }

  stop(): void {}
}
