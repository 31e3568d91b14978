import {
  AgentTracer,
  remoteParent,
  type SpanParent,
  type TelemetryOptions,
} from './agentTracer.js';

/**
 * One tracer per session a process drives, made when the session is first driven and let go
 * when it rests: what a worker driving many sessions keeps. Each session's spans name it as the
 * conversation, so its turns keep their traces across processes.
 *
 * @example
 * const tracers = new SessionTracers({ agentName: 'support' });
 * tracers.for('alice-1').observe(event, actions);
 * tracers.release('alice-1');
 */
export class SessionTracers {
  readonly #options: TelemetryOptions;
  readonly #bySession = new Map<string, AgentTracer>();

  constructor(options: TelemetryOptions = {}) {
    this.#options = options;
  }

  /**
   * The tracer of `sessionId`, made on first use. A subagent's session names its agent, and its
   * turns go under `parent`: its task call's span, in its parent's trace.
   */
  for(sessionId: string, subagent?: { agentName: string; parent?: SpanParent }): AgentTracer {
    let tracer = this.#bySession.get(sessionId);
    if (tracer === undefined) {
      const parent = subagent?.parent;
      tracer = new AgentTracer({
        ...this.#options,
        conversationId: sessionId,
        ...(subagent === undefined ? {} : { agentName: subagent.agentName }),
        ...(parent === undefined ? {} : { parentContext: remoteParent(parent) }),
      });
      this.#bySession.set(sessionId, tracer);
    }
    return tracer;
  }

  /** Lets go of the tracer of a session that rests: its next drive makes a new one. */
  release(sessionId: string): void {
    this.#bySession.delete(sessionId);
  }
}
