/**
 * Fuzzing the boundary of pure mode (DESIGN section 1, "an event that is not valid … is reported
 * as a diagnostic, never thrown"; section 4, "context is plain JSON"): 10,000 arbitrary events —
 * wrong types, missing fields, huge strings, `__proto__` keys, BigInts, dates, maps, cycles,
 * throwing getters and proxies, often shaped like a real event with one bad part deep inside —
 * fed from random states the plausible caller of scenario.ts reaches.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AGENT_STATE_NAMES,
  type AgentCore,
  type AgentDiagnosticCode,
  type AgentEvent,
  findTranscriptViolations,
  LLM_ERROR_KINDS,
  PERMISSION_MODES,
} from '../../../src/index.js';
import { drawHostile, drawPayload, HUGE_STRING } from '../../support/hostileValues.js';
import { testSize } from '../../support/testSize.js';
import { Chooser, configArb, PLAUSIBLE, runScenario } from './scenario.js';

const EVENT_TYPES = [
  'UserInput',
  'LlmStarted',
  'LlmTextDelta',
  'LlmToolCallDelta',
  'LlmCompleted',
  'LlmError',
  'ToolProgress',
  'ToolCompleted',
  'PostToolsHookCompleted',
  'RetryTimeoutFired',
  'ShutdownRequested',
  'Interrupt',
  'ToolApproval',
  'SetPermissionMode',
  'SetTools',
  'ToolGraceExpired',
  'Resume',
  'UserPromptSubmitDecision',
  'StopDecision',
  'PreCompactDecision',
  'Compact',
] as const;

/** `FUZZ_RUNS` scales it for a quick look; under CI it never runs fewer than 200. */
const RUNS = testSize('FUZZ_RUNS', 200);
const EVENTS_PER_RUN = 50;

/** Draws events aimed at the core as it stands: real call ids often, a bad part somewhere. */
class Fuzzer {
  readonly #g: fc.GeneratorValue;
  readonly #choose: Chooser;
  #nextId = 1;

  constructor(g: fc.GeneratorValue) {
    this.#g = g;
    this.#choose = new Chooser(g);
  }

  /** Mostly `good()`, sometimes any value at all (hostile ones included). */
  field(good: () => unknown): unknown {
    return this.#choose.chance(4) ? drawPayload(this.#g) : good();
  }

  /** One of `items`, `undefined` allowed. */
  pick<T>(items: readonly T[]): T {
    return this.#g(() => fc.constantFrom(...items));
  }

  payload(): unknown {
    return drawPayload(this.#g);
  }

  event(core: AgentCore): unknown {
    const choose = this.#choose;
    const callIds = core.context.toolRuns.map((run) => run.call.id);
    const callId = () => this.field(() => choose.oneOf([...callIds, 'toolu_ghost']));
    // A huge string now and then: every snapshot of the run that keeps one costs its size.
    const text = () =>
      this.field(() => (choose.chance(40) ? HUGE_STRING : choose.oneOf(['hello', '', ' '])));
    const type = choose.chance(20)
      ? this.field(() => choose.oneOf(['Nope', '__proto__', 'toString', HUGE_STRING]))
      : choose.weighted(EVENT_TYPES.map((name) => [name === 'ShutdownRequested' ? 1 : 8, name]));
    const fields = ((): Record<string, unknown> => {
      switch (type) {
        case 'UserInput':
          return { message: this.field(() => this.message('user')) };
        case 'LlmTextDelta':
          return { content: text() };
        case 'LlmToolCallDelta':
          return { callId: callId(), toolName: text(), argumentsFragment: text() };
        case 'LlmCompleted':
          return { response: this.field(() => this.response()) };
        case 'LlmError':
          return {
            error: this.field(() => ({
              kind: this.field(() => choose.oneOf(LLM_ERROR_KINDS)),
              message: text(),
              status: this.field(() => this.pick([undefined, 429, 500])),
              retryAfterMs: this.field(() => this.pick([undefined, 0, 1500, 1e300])),
            })),
          };
        case 'ToolProgress':
          return { callId: callId(), progress: this.payload() };
        case 'ToolCompleted':
          return {
            callId: callId(),
            outcome: this.field(() =>
              choose.chance(3)
                ? { status: 'error', error: { message: text() } }
                : { status: 'success', output: this.payload() },
            ),
          };
        case 'PostToolsHookCompleted':
          return {
            actionTaken: this.field(() => choose.chance(2)),
            error: this.field(() => this.pick([undefined, 'git failed', ''])),
          };
        case 'ToolApproval':
          return {
            callId: callId(),
            decision: this.field(() => choose.oneOf(['allow', 'deny'])),
            remember: this.field(() => this.pick([undefined, true, false])),
          };
        case 'SetPermissionMode':
          return { mode: this.field(() => choose.oneOf(PERMISSION_MODES)) };
        case 'SetTools':
          return {
            tools: this.field(() => [
              this.field(() => ({
                name: this.field(() => choose.oneOf(['read_file', 'bash', '', 'two words'])),
                mutating: this.field(() => this.pick([undefined, true, false])),
                inputSchema: this.field(() => this.pick([undefined, { type: 'object' }])),
              })),
            ]),
          };
        case 'UserPromptSubmitDecision':
          return {
            decision: this.field(() => this.pick([undefined, 'block'])),
            reason: this.field(() => this.pick([undefined, 'not that'])),
            // Drawn values go in as they are: handed to `pick` (fast-check's constantFrom), a
            // hostile one (a throwing proxy) would break the fuzzer itself.
            context: choose.chance(2) ? undefined : text(),
            error: this.field(() => this.pick([undefined, 'the hook failed'])),
          };
        case 'StopDecision':
          return {
            decision: this.field(() => this.pick([undefined, 'continue'])),
            reason: choose.chance(3) ? this.pick([undefined, 'run the tests']) : text(),
            error: this.field(() => this.pick([undefined, 'the hook failed'])),
          };
        case 'PreCompactDecision':
          return {
            decision: this.field(() => this.pick([undefined, 'block'])),
            reason: this.field(() => this.pick([undefined, 'not now'])),
            instructions: choose.chance(2) ? undefined : text(),
            error: this.field(() => this.pick([undefined, 'the hook failed'])),
          };
        case 'Compact':
          return { instructions: choose.chance(2) ? undefined : text() };
        case 'Resume':
          return {
            startedToolCallIds: this.field(() => (choose.chance(2) ? undefined : [callId()])),
            retryElapsedMs: this.field(() => this.pick([undefined, 0, 250, 1e9])),
          };
        default:
          return choose.chance(3) ? { extra: this.payload() } : {};
      }
    })();
    return this.wrap({ type, ...fields });
  }

  message(role: 'user' | 'assistant'): unknown {
    const choose = this.#choose;
    if (choose.chance(3)) return { role: this.field(() => role), content: this.field(() => 'hi') };
    const blocks: unknown[] = [];
    const count = choose.int(3) + (role === 'user' ? 1 : 0);
    for (let index = 0; index < count; index++) blocks.push(this.field(() => this.block(role)));
    return { role, content: blocks };
  }

  block(role: 'user' | 'assistant'): unknown {
    const choose = this.#choose;
    const kind = choose.oneOf(['text', 'tool_use', 'thinking', 'server_tool_use', 'mystery']);
    switch (kind) {
      case 'text':
        return { type: 'text', text: this.field(() => 'Working on it.') };
      case 'tool_use':
        if (role === 'user') return { type: 'text', text: 'no tools here' };
        return {
          type: 'tool_use',
          // Sometimes an id seen before: duplicates must still give a valid transcript.
          id: this.field(() =>
            choose.chance(20) ? '__proto__' : `toolu_fz_${choose.chance(3) ? 1 : this.#nextId++}`,
          ),
          name: this.field(() =>
            choose.oneOf(['read_file', 'bash', 'edit_file', 'deploy', '__proto__', 'constructor']),
          ),
          input: this.field(() => ({ path: 'a.txt', extra: this.payload() })),
        };
      case 'thinking':
        return { type: 'thinking', thinking: 'Hmm.', signature: this.field(() => 'sig') };
      default:
        return { type: kind, id: 'srvtoolu_1', data: this.payload() };
    }
  }

  response(): unknown {
    const choose = this.#choose;
    return {
      message: this.field(() => this.message('assistant')),
      stopReason: this.field(() => this.pick([undefined, 'end_turn', 'tool_use', 'refusal'])),
      usage: this.field(() => ({
        input_tokens: this.field(() => choose.int(5000)),
        output_tokens: this.field(() => choose.int(800)),
        cache_read_input_tokens: this.payload(),
      })),
      id: this.field(() => 'msg_fz'),
      model: this.field(() => 'claude-sonnet-5-5'),
      stopDetails: this.field(() => this.pick([undefined, null, { type: 'refusal' }])),
      container: this.field(() => this.pick([undefined, null, { id: 'container_1' }])),
    };
  }

  /** The event as it is, or with a hostile part on top: a getter, a `__proto__` key, a proxy. */
  wrap(event: Record<string, unknown>): unknown {
    const choose = this.#choose;
    switch (choose.int(9)) {
      case 0:
        return Object.defineProperty(event, 'sneaky', {
          enumerable: true,
          get: () => {
            throw new Error('a getter on the event throws');
          },
        });
      case 1:
        return Object.defineProperty(event, '__proto__', {
          value: drawHostile(this.#g),
          enumerable: true,
        });
      case 2:
        return new Proxy(event, {});
      case 3:
        return new Proxy(event, {
          get: (target, key) => {
            if (key === 'type') return Reflect.get(target, key);
            throw new Error('a proxy trap throws');
          },
        });
      default:
        return event;
    }
  }
}

describe('AgentCore fuzzed events', () => {
  it('never throws, stays in one of the seven states and keeps a context that is exactly JSON', () => {
    const counts = { events: 0, throws: 0, nonJsonContexts: 0, accepted: 0, badRequests: 0 };
    const refused = new Map<AgentDiagnosticCode, number>();
    fc.assert(
      fc.property(configArb, fc.gen(), fc.integer({ min: 0, max: 40 }), (config, g, length) => {
        // A random reachable state first, by the plausible caller.
        const { probe } = runScenario({ g, config, length, profile: PLAUSIBLE }, () => undefined);
        const { core } = probe;
        const codes: AgentDiagnosticCode[] = [];
        core.onDiagnostic((diagnostic) => codes.push(diagnostic.code));
        const fuzzer = new Fuzzer(g);
        for (let index = 0; index < EVENTS_PER_RUN; index++) {
          const event = fuzzer.event(core);
          codes.length = 0;
          counts.events++;
          try {
            for (const action of core.handleEvent(event as AgentEvent)) {
              // Whatever was taken, every request is one the API accepts (ids repeat here).
              if (action.type !== 'SendLlmRequest' && action.type !== 'SendCompactionRequest')
                continue;
              if (findTranscriptViolations(action.request.messages).length > 0)
                counts.badRequests++;
            }
          } catch {
            counts.throws++;
          }
          for (const code of codes) refused.set(code, (refused.get(code) ?? 0) + 1);
          if (codes.length === 0) counts.accepted++;
          expect(AGENT_STATE_NAMES).toContain(core.state);
          if (!roundTripsExactly(core)) counts.nonJsonContexts++;
        }
      }),
      { seed: 15, numRuns: RUNS },
    );
    expect({
      events: counts.events,
      throws: counts.throws,
      nonJson: counts.nonJsonContexts,
      badRequests: counts.badRequests,
    }).toEqual({ events: RUNS * EVENTS_PER_RUN, throws: 0, nonJson: 0, badRequests: 0 });
    // The fuzz reaches both sides of the boundary: plenty refused as malformed, plenty taken.
    expect(refused.get('MALFORMED_EVENT')).toBeGreaterThan(3000);
    expect(counts.accepted).toBeGreaterThan(500);
    expect(refused.has('TRANSITION_FAILED')).toBe(false);
  });
});

/** `JSON.parse(JSON.stringify(snapshot))` is the snapshot again, prototypes and `-0` included. */
function roundTripsExactly(core: AgentCore): boolean {
  const snapshot = core.snapshot();
  try {
    return isDeepStrictEqual(JSON.parse(JSON.stringify(snapshot)), snapshot);
  } catch {
    return false;
  }
}
