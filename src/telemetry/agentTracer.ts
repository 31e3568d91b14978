/**
 * OpenTelemetry spans of an agent's work, following the GenAI semantic conventions: one
 * `invoke_agent` span per user turn, a `chat {model}` span per model call attempt and an
 * `execute_tool {name}` span per tool call under it, with retries, approvals and interrupts as
 * events of the turn. The spans are read off what the chart takes and does (its events and
 * actions), so actor mode, pure mode and the workers trace the same way. A subagent's turns hang
 * under its task call's `execute_tool task` span (`parentContext`, `toolContext`).
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as OtelApiModule from '@opentelemetry/api';
import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import {
  type AgentAction,
  type AgentEvent,
  AgentStatechartError,
  type LlmRequest,
  type Message,
  EVENT_TRAITS,
  type ToolCall,
  type ToolOutcome,
  tokensOf,
  type Usage,
  inputTokensOf,
} from '../machine/index.js';

/**
 * What to trace and where.
 *
 * @example
 * import { trace } from '@opentelemetry/api';
 * const telemetry: TelemetryOptions = { tracer: trace.getTracer('my-service'), agentName: 'reviewer' };
 */
export interface TelemetryOptions {
  /**
   * Where spans go. Default: the `agent-statechart` tracer of the global tracer provider, which
   * records nothing until an OpenTelemetry SDK is registered.
   */
  tracer?: Tracer;
  /** `gen_ai.agent.name` of the spans. Default `agent-statechart`. */
  agentName?: string;
  /**
   * `gen_ai.conversation.id` of the spans: a stored session's id, when there is one. With it, a
   * turn's trace id comes from the session and the turn's place in the transcript, so whatever
   * process drives the turn (this one, one that resumed it after a crash, another worker) adds
   * its spans to the same trace.
   */
  conversationId?: string;
  /**
   * Put what was said on the spans: the messages of each model call, the system prompt, tool
   * arguments and results. Off by default: they may hold secrets and personal data.
   */
  recordContent?: boolean;
  /**
   * Where each turn's `invoke_agent` span hangs: a context whose span is its parent, or a
   * function asked as each turn starts (`undefined`: no parent there, the turn goes where it
   * would without one). It wins over the trace a `conversationId` makes, whose place is then
   * linked. `createAgent` sets it for its subagents: a subagent's turn is a child of its task
   * call's `execute_tool task` span ({@link AgentTracer.toolContext}).
   *
   * @example
   * // A child agent driven in pure mode, under the parent's span for the task call.
   * const child = new AgentTracer({
   *   agentName: 'researcher',
   *   parentContext: () => parentTracer.toolContext(action.call.id),
   * });
   */
  parentContext?: Context | (() => Context | undefined);
}

/**
 * The options a `telemetry` option stands for: `true` is the defaults, `false` or nothing is no
 * tracing at all.
 *
 * @example
 * telemetryOptions(true); // {}
 * telemetryOptions(undefined); // undefined
 */
export function telemetryOptions(
  telemetry: boolean | TelemetryOptions | undefined,
): TelemetryOptions | undefined {
  if (telemetry === undefined || telemetry === false) return undefined;
  return telemetry === true ? {} : telemetry;
}

/**
 * A span as another process continues under it: its trace and span ids (hex) and trace flags,
 * plain data a session keeps (a subagent's session, the task call's span it runs under).
 *
 * @example
 * const parent: SpanParent = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 };
 */
export interface SpanParent {
  traceId: string;
  spanId: string;
  traceFlags: number;
}

/**
 * The span parent kept in `value`, when it is one (ids of the right length, in hex).
 *
 * @example
 * spanParentOf(header.metadata?.traceParent);
 */
export function spanParentOf(value: unknown): SpanParent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { traceId, spanId, traceFlags } = value as Record<string, unknown>;
  if (typeof traceId !== 'string' || !/^[0-9a-f]{32}$/.test(traceId)) return undefined;
  if (typeof spanId !== 'string' || !/^[0-9a-f]{16}$/.test(spanId)) return undefined;
  if (typeof traceFlags !== 'number' || !Number.isInteger(traceFlags)) return undefined;
  return { traceId, spanId, traceFlags };
}

/**
 * A `parentContext` option that puts each turn under `parent`, a span of another process.
 *
 * @example
 * new AgentTracer({ conversationId: childId, parentContext: remoteParent(parent) });
 */
export function remoteParent(parent: SpanParent): () => Context {
  const { trace, context } = loadOtelApi();
  return () => trace.setSpanContext(context.active(), { ...parent, isRemote: true });
}

/** The API surface the tracer needs at run time; loaded only when tracing is asked for. */
type OtelApi = typeof OtelApiModule;

/** The span kinds and status codes of the API, as numbers: their values are fixed by the spec. */
const SPAN_KIND_INTERNAL = 0;
const SPAN_KIND_CLIENT = 2;
const STATUS_ERROR = 2;

const PROVIDER = { 'gen_ai.provider.name': 'anthropic' } as const;

interface ChatCall {
  span: Span;
  startedAt: number;
  chunked: boolean;
}

/**
 * Traces one agent from what its chart takes and does. Hand it every event the chart took and
 * every action it emitted, in order ({@link AgentTracer.observe} for a pure-mode step); it opens
 * and ends the spans. `createAgent({ telemetry })` and the workers do this for you.
 *
 * @example
 * const tracer = new AgentTracer({ conversationId: 'session-1' });
 * const actions = core.handleEvent(event);
 * tracer.observe(event, actions);
 * perform(actions);
 */
export class AgentTracer {
  readonly #api: OtelApi;
  readonly #tracer: Tracer;
  readonly #base: Attributes;
  readonly #agentName: string;
  readonly #recordContent: boolean;
  readonly #conversationId: string | undefined;
  readonly #parentContext: TelemetryOptions['parentContext'];
  #turn: { span: Span; context: Context } | undefined;
  #chat: ChatCall | undefined;
  readonly #tools = new Map<string, Span>();
  /** Why the last model call failed, for the retry that follows it. */
  #lastFailure: string | undefined;

  constructor(options: TelemetryOptions = {}) {
    this.#api = loadOtelApi();
    this.#tracer = options.tracer ?? this.#api.trace.getTracer('agent-statechart');
    this.#agentName = options.agentName ?? 'agent-statechart';
    this.#recordContent = options.recordContent ?? false;
    this.#conversationId = options.conversationId;
    this.#parentContext = options.parentContext;
    this.#base = {
      ...PROVIDER,
      'gen_ai.agent.name': this.#agentName,
      ...(options.conversationId === undefined
        ? {}
        : { 'gen_ai.conversation.id': options.conversationId }),
    };
  }

  /**
   * One pure-mode step: the event the chart was handed and the actions it answered with.
   *
   * @example
   * tracer.observe(event, core.handleEvent(event));
   */
  observe(event: AgentEvent, actions: readonly AgentAction[]): void {
    this.event(event);
    for (const action of actions) this.action(action);
  }

  /**
   * An event the chart took, before the actions it leads to.
   *
   * @example
   * tracer.event({ type: 'Interrupt' });
   */
  event(event: AgentEvent): void {
    const chat = this.#chat;
    if (chat !== undefined && !chat.chunked && EVENT_TRAITS[event.type]?.streamed) {
      this.#firstChunk(chat);
    }
    switch (event.type) {
      case 'LlmCompleted': {
        if (chat === undefined) return;
        if (!chat.chunked) this.#firstChunk(chat);
        const { response } = event;
        chat.span.setAttributes({
          ...(response.id === undefined ? {} : { 'gen_ai.response.id': response.id }),
          ...(response.model === undefined ? {} : { 'gen_ai.response.model': response.model }),
          ...(response.stopReason === undefined
            ? {}
            : { 'gen_ai.response.finish_reasons': [response.stopReason] }),
          ...usageAttributes(response.usage),
          ...(this.#recordContent
            ? { 'gen_ai.output.messages': JSON.stringify([response.message]) }
            : {}),
        });
        return;
      }
      case 'LlmError':
        this.#lastFailure = event.error.kind;
        chat?.span.setAttribute('error.type', event.error.kind);
        chat?.span.setStatus({ code: STATUS_ERROR, message: event.error.message });
        return;
      case 'ToolCompleted':
        return this.#endTool(event.callId, event.outcome);
      case 'ToolApproval':
        return this.#turnEvent('agent_statechart.approval', {
          'gen_ai.tool.call.id': event.callId,
          'agent_statechart.approval.decision': event.decision,
          'agent_statechart.approval.remember': event.remember ?? false,
        });
      case 'Interrupt':
        return this.#turnEvent('agent_statechart.interrupt', {});
      case 'ToolGraceExpired':
        return this.#endTools('the call did not say how it ended before the grace period passed');
      default:
        return;
    }
  }

  /**
   * An action the chart emitted.
   *
   * @example
   * tracer.action({ type: 'WaitForInput' });
   */
  action(action: AgentAction): void {
    switch (action.type) {
      case 'SendLlmRequest':
        return this.#startChat(action.request, { 'agent_statechart.attempt': action.attempt });
      case 'SendCompactionRequest':
        // A compaction asked for between turns belongs to no turn.
        return this.#startChat(
          action.request,
          { 'agent_statechart.compaction.trigger': action.trigger },
          action.trigger === 'auto',
        );
      case 'Compacted':
      case 'CompactionSkipped': {
        const chat = this.#chat;
        if (chat === undefined) return;
        chat.span.setAttribute(
          'agent_statechart.call.status',
          action.type === 'Compacted' ? 'compacted' : 'skipped',
        );
        chat.span.end();
        this.#chat = undefined;
        return;
      }
      case 'LlmCallEnded': {
        const chat = this.#chat;
        if (chat === undefined) return;
        chat.span.setAttribute('agent_statechart.call.status', action.status);
        chat.span.end();
        this.#chat = undefined;
        return;
      }
      case 'ScheduleRetry':
        return this.#turnEvent('agent_statechart.retry', {
          'agent_statechart.retry.attempt': action.attempt,
          'agent_statechart.retry.delay_ms': action.delayMs,
          ...(this.#lastFailure === undefined ? {} : { 'error.type': this.#lastFailure }),
        });
      case 'ExecuteTools':
        for (const call of action.calls) this.#startTool(call);
        return;
      case 'StartSubagent':
        return this.#startTool(action.call);
      case 'RequestApproval':
        return this.#turnEvent('agent_statechart.approval_requested', {
          'gen_ai.tool.name': action.call.name,
          'gen_ai.tool.call.id': action.call.id,
        });
      case 'DisplayError':
        return this.#turnEvent('agent_statechart.error', {
          'agent_statechart.error.message': action.message,
        });
      case 'WaitForInput':
        return this.#endTurn();
      case 'Shutdown':
        this.#endTurn();
        return this.#endTools('the agent shut down before the call said how it ended');
      default:
        return;
    }
  }

  /**
   * The context of a tool call's open `execute_tool` span: where what the call does is traced
   * (a task call's subagent, say). `undefined` once the call ended, or for a call with no span.
   *
   * @example
   * tracer.observe(event, actions); // a StartSubagent among them
   * const parentContext = tracer.toolContext(call.id);
   */
  toolContext(callId: string): Context | undefined {
    const span = this.#tools.get(callId);
    if (span === undefined) return undefined;
    return this.#api.trace.setSpan(this.#turn?.context ?? this.#api.context.active(), span);
  }

  /**
   * A tool call's open `execute_tool` span as plain data, for another process to continue
   * under (a subagent's session driven elsewhere). `undefined` as for {@link toolContext}.
   *
   * @example
   * const parent = tracer.toolSpanParent(call.id); // kept with the subagent's session
   */
  toolSpanParent(callId: string): SpanParent | undefined {
    const span = this.#tools.get(callId);
    if (span === undefined) return undefined;
    const { traceId, spanId, traceFlags } = span.spanContext();
    return { traceId, spanId, traceFlags };
  }

  #startChat(request: LlmRequest, extra: Attributes, inTurn = true): void {
    // A call left open (a stream that never said how it ended) ends where the next begins.
    this.#chat?.span.end();
    const parent = inTurn
      ? this.#startTurn(request.model, request.messages).context
      : (this.#givenParent() ?? this.#api.context.active());
    const attributes: Attributes = {
      ...this.#base,
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': request.model,
      'gen_ai.request.max_tokens': request.maxTokens,
      ...extra,
    };
    if (this.#recordContent) {
      attributes['gen_ai.input.messages'] = JSON.stringify(request.messages);
      if (request.system !== undefined) {
        attributes['gen_ai.system_instructions'] = JSON.stringify(request.system);
      }
    }
    const span = this.#tracer.startSpan(
      `chat ${request.model}`,
      { kind: SPAN_KIND_CLIENT, attributes },
      parent,
    );
    this.#chat = { span, startedAt: performance.now(), chunked: false };
  }

  #firstChunk(chat: ChatCall): void {
    chat.chunked = true;
    // To the microsecond: finer is below what a clock read here can tell.
    const seconds = Math.round((performance.now() - chat.startedAt) * 1000) / 1e6;
    chat.span.setAttribute('gen_ai.response.time_to_first_chunk', seconds);
  }

  #startTurn(model: string, messages: readonly Message[]): { span: Span; context: Context } {
    if (this.#turn !== undefined) return this.#turn;
    this.#endTools('a new turn started before the call said how it ended');
    const { trace, context } = this.#api;
    const given = this.#givenParent();
    const active = given ?? context.active();
    const session = this.#turnParent(messages);
    // The parent given wins over the session's place in its trace, which is linked; the session's
    // place wins over a caller's own span (a request handler's, say), which is linked.
    const link = given === undefined ? trace.getSpanContext(active) : session;
    const parent = given === undefined ? session : undefined;
    const span = this.#tracer.startSpan(
      `invoke_agent ${this.#agentName}`,
      {
        kind: SPAN_KIND_INTERNAL,
        attributes: {
          ...this.#base,
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.request.model': model,
        },
        ...(session === undefined || link === undefined ? {} : { links: [{ context: link }] }),
      },
      parent === undefined ? active : trace.setSpanContext(active, parent),
    );
    this.#turn = { span, context: trace.setSpan(active, span) };
    return this.#turn;
  }

  /** The parent the options give a turn, if any. */
  #givenParent(): Context | undefined {
    const parent = this.#parentContext;
    return typeof parent === 'function' ? parent() : parent;
  }

  /**
   * The turn's place in its session's trace: a parent with a trace id made from the session's
   * id and the index of the message that began the turn, the same in every process that drives
   * it. `undefined` for an agent with no session, whose turns start traces of their own.
   */
  #turnParent(messages: readonly Message[]) {
    if (this.#conversationId === undefined) return undefined;
    const digest = createHash('sha256')
      .update(`${this.#conversationId}\u0000${turnStartIndex(messages)}`)
      .digest('hex');
    return {
      traceId: digest.slice(0, 32),
      spanId: digest.slice(32, 48),
      traceFlags: 1,
      isRemote: true,
    };
  }

  #startTool(call: ToolCall): void {
    const turn = this.#turn;
    if (turn === undefined || this.#tools.has(call.id)) return;
    const attributes: Attributes = {
      ...this.#base,
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': call.name,
      'gen_ai.tool.call.id': call.id,
      'gen_ai.tool.type': 'function',
    };
    if (this.#recordContent) attributes['gen_ai.tool.call.arguments'] = JSON.stringify(call.input);
    const span = this.#tracer.startSpan(
      `execute_tool ${call.name}`,
      { kind: SPAN_KIND_INTERNAL, attributes },
      turn.context,
    );
    this.#tools.set(call.id, span);
  }

  #endTool(callId: string, outcome: ToolOutcome): void {
    const span = this.#tools.get(callId);
    if (span === undefined) return;
    this.#tools.delete(callId);
    if (outcome.status === 'error') {
      span.setAttribute('error.type', 'tool_error');
      span.setStatus({ code: STATUS_ERROR, message: outcome.error.message });
    }
    if (this.#recordContent) {
      span.setAttribute('gen_ai.tool.call.result', JSON.stringify(resultOf(outcome)));
    }
    span.end();
  }

  /** Ends the spans of calls still open, as calls whose ending is unknown. */
  #endTools(why: string): void {
    for (const span of this.#tools.values()) {
      span.setAttribute('error.type', 'unknown_ending');
      span.setStatus({ code: STATUS_ERROR, message: why });
      span.end();
    }
    this.#tools.clear();
  }

  #turnEvent(name: string, attributes: Attributes): void {
    this.#turn?.span.addEvent(name, attributes);
  }

  /**
   * The turn is over. A tool call it cancelled stays open until it says how it really ended (or
   * the grace period passes): its span tells the truth, as its `tool_result` does.
   */
  #endTurn(): void {
    this.#chat?.span.end();
    this.#chat = undefined;
    this.#turn?.span.end();
    this.#turn = undefined;
    this.#lastFailure = undefined;
  }
}

/**
 * The index of the user message that began the turn a request belongs to: the last one that is
 * the user's own words, not tool results answering the model.
 */
function turnStartIndex(messages: readonly Message[]): number {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== 'user') continue;
    if (typeof message.content === 'string') return index;
    if (!message.content.every((block) => block.type === 'tool_result')) return index;
  }
  return 0;
}

/**
 * The convention's token counts: its input count includes what was written to and read from the
 * cache, which the Messages API counts apart.
 */
function usageAttributes(usage: Usage | undefined): Attributes {
  if (usage === undefined) return {};
  const tokens = tokensOf(usage);
  return {
    'gen_ai.usage.input_tokens': inputTokensOf(tokens),
    'gen_ai.usage.output_tokens': tokens.output_tokens,
    'gen_ai.usage.cache_creation.input_tokens': tokens.cache_creation_input_tokens,
    'gen_ai.usage.cache_read.input_tokens': tokens.cache_read_input_tokens,
  };
}

function resultOf(outcome: ToolOutcome): unknown {
  if (outcome.status === 'error') return outcome.error.message;
  return 'output' in outcome ? outcome.output : outcome.content;
}

/**
 * `@opentelemetry/api`, an optional peer dependency: loaded when tracing is asked for, so an
 * agent that does not trace never loads it.
 */
function loadOtelApi(): OtelApi {
  try {
    return createRequire(import.meta.url)('@opentelemetry/api') as OtelApi;
  } catch {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      'telemetry needs the @opentelemetry/api package: npm install @opentelemetry/api',
    );
  }
}
