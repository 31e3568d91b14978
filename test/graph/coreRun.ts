/**
 * Pure mode: `AgentCore.handleEvent(event) → actions`. Pure mode has no actors, so it cannot
 * see an actor crash: it must refuse the event as malformed (never throw), and the run then
 * resumes from the reference's snapshot after a JSON round trip, as a host would resume a
 * stored agent.
 */
import {
  type AgentConfig,
  AgentCore,
  type AgentDiagnostic,
  type AgentEvent,
  type AgentSnapshot,
} from '../../src/index.js';
import type { PathRun, RunView, StepResult } from './pathRun.js';
import { isActorCrash, type PathEvent } from './pathEvents.js';

export class CoreRun implements PathRun {
  readonly mode = 'pure mode (AgentCore)';
  #core: AgentCore;
  readonly #config: AgentConfig;
  readonly #diagnostics: AgentDiagnostic[] = [];
  #problems: string[] = [];

  readonly #onDiagnostic = (diagnostic: AgentDiagnostic) => this.#diagnostics.push(diagnostic);

  constructor(config: AgentConfig) {
    this.#config = config;
    this.#core = new AgentCore(config, { onDiagnostic: this.#onDiagnostic });
  }

  view(): RunView {
    return {
      state: this.#core.state,
      status: this.#core.done ? 'done' : 'active',
      context: this.#core.context,
    };
  }

  send(event: PathEvent): StepResult {
    this.#diagnostics.length = 0;
    // An actor crash is not an `AgentEvent`; pure mode must refuse it like any malformed event.
    const actions = this.#core.handleEvent(event as AgentEvent);
    if (isActorCrash(event)) {
      const refused = actions.length === 0 && this.#diagnostics[0]?.code === 'MALFORMED_EVENT';
      if (!refused) {
        this.#problems.push(`did not refuse the actor-only event ${event.type}`);
      }
    } else {
      for (const diagnostic of this.#diagnostics) {
        this.#problems.push(`reported ${diagnostic.code}: ${diagnostic.message}`);
      }
    }
    return { ...this.view(), accepted: this.#diagnostics.length === 0, actions };
  }

  /**
   * Continues from another run's state, through `snapshot()`'s JSON form, after an event pure
   * mode cannot take.
   */
  resumeFrom(view: RunView): void {
    const stored = JSON.stringify({ version: 1, state: view.state, context: view.context });
    this.#core = AgentCore.fromSnapshot(JSON.parse(stored) as AgentSnapshot, this.#config, {
      onDiagnostic: this.#onDiagnostic,
    });
  }

  takeProblems(): string[] {
    const problems = this.#problems;
    this.#problems = [];
    return problems;
  }

  stop(): void {}
}
