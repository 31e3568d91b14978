/**
 * The same loop as a naive XState v5 machine, written the obvious way: every
 * streaming delta is an `actor.send`, each one a full transition with a new context object; the
 * transcript grows by spreading into a new array. It has the same states, invokes the model call
 * and spawns one child per tool call, like the real chart, but none of its extras (permissions,
 * interrupts, diagnostics). The model call and the tools are actors the caller provides: stand-ins
 * in the per-turn benchmark, the real SDK in the density benchmark.
 */
import { type AnyEventObject, assign, emit, enqueueActions, fromCallback, setup } from 'xstate';
import type {
  AgentAction,
  AgentEvent,
  Message,
  ToolCall,
  ToolOutcome,
  ToolResultBlock,
} from '../../src/index.js';
import { toolCallsOf } from './toolCallsOf.js';

interface NaiveContext {
  messages: Message[];
  streamingText: string;
  calls: ToolCall[];
  outcomes: Record<string, ToolOutcome>;
  retries: number;
  queue: Message[];
}

const MODEL = 'claude-sonnet-5-5';

function resultsMessage(context: NaiveContext): Message {
  const content = context.calls.map((call): ToolResultBlock => {
    const outcome = context.outcomes[call.id];
    if (outcome === undefined || !('output' in outcome)) {
      return { type: 'tool_result', tool_use_id: call.id, content: 'failed', is_error: true };
    }
    return { type: 'tool_result', tool_use_id: call.id, content: String(outcome.output) };
  });
  return { role: 'user', content };
}

export const naiveMachine = setup({
  types: {
    context: {} as NaiveContext,
    events: {} as AgentEvent,
    input: {} as { messages: Message[] },
    emitted: {} as AgentAction,
  },
  actors: {
    llm: fromCallback<AnyEventObject, { messages: Message[] }>(() => undefined),
    tool: fromCallback<AnyEventObject, { call: ToolCall }>(() => undefined),
  },
}).createMachine({
  id: 'naive',
  context: ({ input }) => ({
    messages: input.messages,
    streamingText: '',
    calls: [],
    outcomes: {},
    retries: 0,
    queue: [],
  }),
  initial: 'WaitingForUserInput',
  on: { ShutdownRequested: { target: '.ShuttingDown' } },
  states: {
    WaitingForUserInput: {
      entry: emit({ type: 'WaitForInput' }),
      on: {
        UserInput: {
          target: 'CallingLlm',
          actions: assign(({ context, event }) => ({
            messages: [...context.messages, event.message],
            retries: 0,
          })),
        },
      },
    },
    CallingLlm: {
      entry: emit(({ context }) => ({
        type: 'SendLlmRequest' as const,
        request: { model: MODEL, maxTokens: 4096, messages: context.messages },
        attempt: context.retries + 1,
      })),
      invoke: { id: 'llm', src: 'llm', input: ({ context }) => ({ messages: context.messages }) },
      on: {
        UserInput: {
          actions: assign(({ context, event }) => ({ queue: [...context.queue, event.message] })),
        },
        LlmTextDelta: {
          actions: [
            assign(({ context, event }) => ({
              streamingText: context.streamingText + event.content,
            })),
            emit(({ event }) => ({ type: 'DisplayMessage' as const, text: event.content })),
          ],
        },
        LlmToolCallDelta: {
          // The naive machine keeps no partial tool calls; the completed response carries them.
          actions: assign(({ context }) => ({ streamingText: context.streamingText })),
        },
        LlmCompleted: [
          {
            guard: ({ event }) => toolCallsOf(event.response.message).length > 0,
            target: 'ExecutingTools',
            actions: assign(({ context, event }) => ({
              messages: [...context.messages, event.response.message],
              calls: toolCallsOf(event.response.message),
              outcomes: {},
              streamingText: '',
            })),
          },
          {
            target: 'WaitingForUserInput',
            actions: assign(({ context, event }) => ({
              messages: [...context.messages, event.response.message],
              streamingText: '',
            })),
          },
        ],
        LlmError: [
          {
            guard: ({ context }) => context.retries + 1 < 3,
            target: 'Error',
            actions: assign(({ context }) => ({ retries: context.retries + 1 })),
          },
          { target: 'WaitingForUserInput' },
        ],
      },
    },
    ExecutingTools: {
      entry: enqueueActions(({ context, enqueue }) => {
        for (const call of context.calls)
          enqueue.spawnChild('tool', { id: call.id, input: { call } });
        enqueue.emit({ type: 'ExecuteTools', calls: context.calls });
      }),
      always: {
        guard: ({ context }) => context.calls.every((call) => call.id in context.outcomes),
        target: 'CallingLlm',
        actions: assign(({ context }) => ({
          messages: [...context.messages, resultsMessage(context)],
        })),
      },
      on: {
        ToolCompleted: {
          actions: enqueueActions(({ context, event, enqueue }) => {
            enqueue.assign({ outcomes: { ...context.outcomes, [event.callId]: event.outcome } });
            enqueue.stopChild(event.callId);
          }),
        },
      },
    },
    Error: { on: { RetryTimeoutFired: { target: 'CallingLlm' } } },
    ShuttingDown: { type: 'final' },
  },
});
