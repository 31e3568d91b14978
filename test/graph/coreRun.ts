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

  send(event: PathEvent, refusalExpected = false): StepResult {
    this.#diagnostics.length = 0;
    const actions = this.#core.handleEvent(toChartEvent(event, this.#core.context));
    const codes = this.#diagnostics.map((diagnostic) => diagnostic.code);
    if (refusalExpected && !(codes.length === 1 && codes[0] === 'EVENT_NOT_ACCEPTED')) {
      this.#problems.push(`reported [${codes.join(', ')}], expected EVENT_NOT_ACCEPTED`);
    }
    for (const diagnostic of refusalExpected ? [] : this.#diagnostics) {
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
