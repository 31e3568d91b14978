/**
 * Type tests of the public contract (DESIGN section 3): what `agent-statechart` exports and how
 * its types guide a caller. Checked by vitest's typecheck mode; every `@ts-expect-error` line
 * fails the run if the type it guards ever becomes too loose.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { type AnyEventObject, type EventObject, fromCallback, type SnapshotFrom } from 'xstate';
import * as entry from '../../src/index.js';
import type { AGENT_STATE_NAMES, StartupDiagnosticCode } from '../../src/index.js';
import {
  type Agent,
  type AgentAction,
  type AgentActorName,
  type AgentConfig,
  type AgentContext,
  AgentCore,
  type AgentDiagnosticCode,
  type AgentEvent,
  type AgentEventType,
  type AgentNotification,
  type AgentNotifications,
  type AgentSnapshot,
  type AgentStateName,
  type AgentStateValue,
  agentMachine,
  type EffectStart,
  EVENT_TRAITS,
  type EventOrigin,
  type EventTraits,
  type LlmActorInput,
  type LlmRequest,
  type LlmStartedEvent,
  type Message,
  type PostToolsHookCompletedEvent,
  type ResumeEvent,
  type SubagentActorInput,
  type SubagentTask,
  type ToolActorInput,
  type ToolCall,
  type ToolOutcome,
} from '../../src/index.js';

/** True when a value of type T survives `JSON.stringify` unchanged in shape: no functions, no class methods. */
type JsonSafe<T> = T extends string | number | boolean | null | undefined
  ? true
  : T extends bigint | symbol
    ? false
    : T extends (...args: never[]) => unknown
      ? false
      : T extends readonly (infer Item)[]
        ? JsonSafe<Item>
        : T extends object
          ? AllTrue<{ [K in keyof T]-?: JsonSafe<T[K]> }>
          : true;
type AllTrue<T> = false extends T[keyof T] ? false : true;

/** An intersection of object types as the one object type it stands for. */
type Flat<T> = { [K in keyof T]: T[K] };

declare const core: AgentCore;
declare const action: AgentAction;

describe('public entry', () => {
  it('exports the names of DESIGN section 3', () => {
    expectTypeOf(entry).toHaveProperty('agentMachine');
    expectTypeOf(entry).toHaveProperty('AgentCore');
    expectTypeOf(entry.agentMachine).toEqualTypeOf(agentMachine);
    expectTypeOf(entry.AgentCore).toEqualTypeOf<typeof AgentCore>();
    // @ts-expect-error the entry exports no such name
    expectTypeOf(entry).toHaveProperty('NotExported');
  });

  it('constructs AgentCore from a config whose every field is optional', () => {
    expectTypeOf(AgentCore).toBeConstructibleWith();
    expectTypeOf(AgentCore).toBeConstructibleWith({ maxRetries: 3 });
    expectTypeOf(AgentCore).toBeConstructibleWith({
      maxRetries: 2,
      model: 'claude-sonnet-5-5',
      system: 'Be careful.',
      tools: [{ name: 'read_file', mutating: false }],
      retry: { baseDelayMs: 200, factor: 2, maxDelayMs: 5000, seed: 7 },
      permissions: { mode: 'acceptEdits', deny: ['bash'] },
    });
    // @ts-expect-error maxRetries is a number
    new AgentCore({ maxRetries: '3' });
    // @ts-expect-error an unknown permission mode
    new AgentCore({ permissions: { mode: 'yolo' } });
  });
});

describe('AgentCore.handleEvent', () => {
  it('accepts AgentEvent and returns AgentAction[]', () => {
    expectTypeOf<AgentCore['handleEvent']>().parameter(0).toEqualTypeOf<AgentEvent>();
    expectTypeOf<AgentCore['handleEvent']>().returns.toEqualTypeOf<AgentAction[]>();
    expectTypeOf<AgentCore['handleEvent']>().toBeCallableWith({ type: 'Interrupt' });
    expectTypeOf<AgentCore['handleEvent']>().toBeCallableWith({
      type: 'UserInput',
      message: { role: 'user', content: 'hi' },
    });
  });

  it('names exactly the events and actions of DESIGN section 1, plus those of waits, restarts and attempts', () => {
    expectTypeOf<AgentEvent['type']>().toEqualTypeOf<
      | 'UserInput'
      | 'LlmStarted'
      | 'LlmTextDelta'
      | 'LlmToolCallDelta'
      | 'LlmCompleted'
      | 'LlmError'
      | 'ToolProgress'
      | 'ToolCompleted'
      | 'PostToolsHookCompleted'
      | 'RetryTimeoutFired'
      | 'ShutdownRequested'
      | 'Interrupt'
      | 'ToolApproval'
      | 'UserAnswer'
      | 'PreToolUseDecision'
      | 'PostToolUseResult'
      | 'UserPromptSubmitDecision'
      | 'StopDecision'
      | 'PreCompactDecision'
      | 'Compact'
      | 'SetPermissionMode'
      | 'SetTools'
      | 'ToolGraceExpired'
      | 'Resume'
    >();
    expectTypeOf<AgentAction['type']>().toEqualTypeOf<
      | 'SendLlmRequest'
      | 'LlmCallEnded'
      | 'UsageReported'
      | 'ExecuteTools'
      | 'StartSubagent'
      | 'RunPostToolsHook'
      | 'WaitForInput'
      | 'DisplayMessage'
      | 'DisplayError'
      | 'Shutdown'
      | 'ScheduleRetry'
      | 'RequestApproval'
      | 'AskUser'
      | 'RunPreToolUseHook'
      | 'RunPostToolUseHook'
      | 'RunUserPromptSubmitHook'
      | 'RunStopHook'
      | 'PromptDropped'
      | 'SendCompactionRequest'
      | 'RunPreCompactHook'
      | 'Compacted'
      | 'CompactionSkipped'
      | 'OutputGiven'
      | 'Cancel'
    >();
  });

  it('rejects events the chart does not define, or without their payload', () => {
    // @ts-expect-error no such event type
    core.handleEvent({ type: 'Nope' });
    // @ts-expect-error UserInput needs its message
    core.handleEvent({ type: 'UserInput' });
    // @ts-expect-error a tool outcome status is 'success' or 'error'
    core.handleEvent({ type: 'ToolCompleted', callId: 't1', outcome: { status: 'done' } });
    // @ts-expect-error ToolApproval decides 'allow' or 'deny'
    core.handleEvent({ type: 'ToolApproval', callId: 't1', decision: 'maybe' });
    // @ts-expect-error an unknown error kind
    core.handleEvent({ type: 'LlmError', error: { kind: 'teapot', message: 'no' } });
    // @ts-expect-error a Resume says how long the backoff was waited, not how long is left
    core.handleEvent({ type: 'Resume', retryDelayMs: 100 });
    // @ts-expect-error a hook's failure is a message
    core.handleEvent({ type: 'PostToolsHookCompleted', actionTaken: false, error: new Error('x') });
  });

  it('takes the events of an attempt starting, a failed hook and a restart, with their payloads', () => {
    expectTypeOf<LlmStartedEvent>().toEqualTypeOf<{ type: 'LlmStarted' }>();
    expectTypeOf<Extract<AgentEvent, { type: 'LlmStarted' }>>().toEqualTypeOf<LlmStartedEvent>();
    expectTypeOf<PostToolsHookCompletedEvent['error']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ResumeEvent>().toEqualTypeOf<{
      type: 'Resume';
      startedToolCallIds?: string[];
      retryElapsedMs?: number;
    }>();
    expectTypeOf<AgentCore['handleEvent']>().toBeCallableWith({ type: 'LlmStarted' });
    expectTypeOf<AgentCore['handleEvent']>().toBeCallableWith({
      type: 'PostToolsHookCompleted',
      actionTaken: false,
      error: 'auto-commit failed: index.lock exists',
    });
    expectTypeOf<AgentCore['handleEvent']>().toBeCallableWith({
      type: 'Resume',
      startedToolCallIds: ['toolu_1'],
      retryElapsedMs: 900,
    });
    expectTypeOf<AgentCore['accepts']>().parameter(0).toEqualTypeOf<AgentEvent>();
    expectTypeOf<AgentCore['accepts']>().returns.toEqualTypeOf<boolean>();
  });

  it('narrows an action by its type to its payload', () => {
    if (action.type === 'SendLlmRequest') {
      expectTypeOf(action.request).toEqualTypeOf<LlmRequest>();
      expectTypeOf(action.request.messages).toEqualTypeOf<Message[]>();
      expectTypeOf(action.attempt).toEqualTypeOf<number>();
    }
    if (action.type === 'LlmCallEnded') {
      expectTypeOf(action.status).toEqualTypeOf<'completed' | 'failed' | 'interrupted'>();
    }
    if (action.type === 'DisplayError') {
      expectTypeOf(action.source).toEqualTypeOf<'hook' | undefined>();
    }
    if (action.type === 'ExecuteTools') expectTypeOf(action.calls).toEqualTypeOf<ToolCall[]>();
    if (action.type === 'ScheduleRetry') {
      expectTypeOf(action).toEqualTypeOf<{
        type: 'ScheduleRetry';
        delayMs: number;
        attempt: number;
      }>();
    }
    if (action.type === 'Shutdown') expectTypeOf(action.discardedInput).toEqualTypeOf<Message[]>();
    if (action.type === 'Cancel') {
      expectTypeOf(action.toolCallIds).toEqualTypeOf<string[] | undefined>();
    }
    expectTypeOf<Extract<AgentAction, { type: 'RequestApproval' }>>()
      .toHaveProperty('call')
      .toEqualTypeOf<ToolCall>();
    // @ts-expect-error only a SendLlmRequest carries a request
    expectTypeOf(action).toHaveProperty('request');
    if (action.type === 'WaitForInput') {
      // @ts-expect-error WaitForInput has no payload
      expectTypeOf(action).toHaveProperty('request');
    }
  });
});

describe('AgentCore state and snapshot', () => {
  it('reports the state as one of the seven names', () => {
    expectTypeOf(core.state).toEqualTypeOf<AgentStateName>();
    expectTypeOf<AgentStateName>().toEqualTypeOf<
      | 'WaitingForUserInput'
      | 'CallingLlm'
      | 'ProcessingLlmResponse'
      | 'ExecutingTools'
      | 'PostToolsHook'
      | 'Error'
      | 'ShuttingDown'
    >();
    // @ts-expect-error not a state of the chart
    const state: AgentStateName = 'Thinking';
    expectTypeOf(state).toEqualTypeOf<AgentStateName>();
    expectTypeOf(core.context).toEqualTypeOf<AgentContext>();
  });

  it('reports where the chart is, nested states included, as the XState state value', () => {
    expectTypeOf(core.stateValue).toEqualTypeOf<AgentStateValue>();
    expectTypeOf<Agent['stateValue']>().toEqualTypeOf<AgentStateValue>();
    expectTypeOf<Agent['state']>().toEqualTypeOf<AgentStateName>();
    expectTypeOf<AgentStateValue>().toEqualTypeOf<
      | 'PostToolsHook'
      | 'Error'
      | 'ShuttingDown'
      | {
          WaitingForUserInput:
            | 'Ready'
            | 'SettlingCancelledCalls'
            | 'CheckingPrompt'
            | 'CheckingCompaction'
            | 'Compacting';
        }
      | { CallingLlm: 'Sizing' | 'CheckingCompaction' | 'Compacting' | 'Streaming' }
      | { ProcessingLlmResponse: 'Deciding' | 'CheckingStop' }
      | {
          ExecutingTools: {
            Hooks: 'Idle' | 'Running';
            Approvals: 'Idle' | 'Waiting';
            Subagents: 'Idle' | 'Running';
            Questions: 'Idle' | 'Waiting';
          };
        }
    >();
    // The machine's own snapshots say the same.
    expectTypeOf<SnapshotFrom<typeof agentMachine>['value']>().toEqualTypeOf<AgentStateValue>();
    // @ts-expect-error WaitingForUserInput is always one of its nested states
    const waiting: AgentStateValue = 'WaitingForUserInput';
    expectTypeOf(waiting).toEqualTypeOf<AgentStateValue>();
    // @ts-expect-error CallingLlm is always one of its nested states, as WaitingForUserInput is
    const calling: AgentStateValue = 'CallingLlm';
    expectTypeOf(calling).toEqualTypeOf<AgentStateValue>();
    // @ts-expect-error not a state nested in WaitingForUserInput
    const thinking: AgentStateValue = { WaitingForUserInput: 'Thinking' };
    expectTypeOf(thinking).toEqualTypeOf<AgentStateValue>();
  });

  it('has a JSON-compatible snapshot (no functions anywhere) that fromSnapshot takes back', () => {
    expectTypeOf(core.snapshot()).toEqualTypeOf<AgentSnapshot>();
    expectTypeOf<AgentSnapshot['version']>().toEqualTypeOf<1>();
    expectTypeOf<AgentSnapshot['state']>().toEqualTypeOf<AgentStateName>();
    expectTypeOf<JsonSafe<AgentSnapshot>>().toEqualTypeOf<true>();
    expectTypeOf<JsonSafe<AgentConfig>>().toEqualTypeOf<true>();
    // The check itself can fail: a function, a Date or a Map anywhere inside is not JSON.
    // @ts-expect-error a function is not JSON
    expectTypeOf<JsonSafe<{ context: { onEvent: () => void } }>>().toEqualTypeOf<true>();
    // @ts-expect-error a Date is not JSON
    expectTypeOf<JsonSafe<{ messages: Array<{ at: Date }> }>>().toEqualTypeOf<true>();
    // @ts-expect-error a Map is not JSON
    expectTypeOf<JsonSafe<{ runs: Map<string, number> }>>().toEqualTypeOf<true>();

    expectTypeOf<typeof AgentCore.fromSnapshot>().parameter(0).toEqualTypeOf<AgentSnapshot>();
    expectTypeOf<typeof AgentCore.fromSnapshot>().returns.toEqualTypeOf<AgentCore>();
    expectTypeOf<typeof AgentCore.fromSnapshot>().toBeCallableWith(core.snapshot(), {
      maxRetries: 3,
    });
    // @ts-expect-error a snapshot needs its version, state and context
    AgentCore.fromSnapshot({ state: 'CallingLlm' });
  });
});

describe('agentMachine.provide', () => {
  it('takes llm and tool actors built with fromCallback over their input types', () => {
    const llm = fromCallback<EventObject, LlmActorInput>(({ input, sendBack }) => {
      expectTypeOf(input.request).toEqualTypeOf<LlmRequest>();
      sendBack({ type: 'LlmTextDelta', content: 'Hi' });
    });
    const tool = fromCallback<AnyEventObject, ToolActorInput>(({ input, sendBack }) => {
      sendBack({
        type: 'ToolCompleted',
        callId: input.call.id,
        outcome: { status: 'success', output: 1 },
      });
    });
    const provided = agentMachine.provide({ actors: { llm, tool } });
    expectTypeOf(provided).toEqualTypeOf(agentMachine);
  });

  it('takes a subagent actor over SubagentActorInput, which answers its task call with usage', () => {
    const subagent = fromCallback<AnyEventObject, SubagentActorInput>(({ input, sendBack }) => {
      expectTypeOf(input.task).toEqualTypeOf<SubagentTask>();
      sendBack({
        type: 'ToolCompleted',
        callId: input.call.id,
        outcome: { status: 'success', output: 'LGTM' },
        usage: {
          input_tokens: 1,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
          costUsd: null,
        },
      });
    });
    expectTypeOf(agentMachine.provide({ actors: { subagent } })).toEqualTypeOf(agentMachine);
    const wrongInput = fromCallback<EventObject, ToolActorInput>(() => undefined);
    // @ts-expect-error the subagent actor receives SubagentActorInput
    agentMachine.provide({ actors: { subagent: wrongInput } });
  });

  it('rejects an actor whose input is not what the chart gives it, or an actor it does not invoke', () => {
    const wrongInput = fromCallback<EventObject, { prompt: number }>(() => undefined);
    // @ts-expect-error the llm actor receives LlmActorInput
    agentMachine.provide({ actors: { llm: wrongInput } });
    const llm = fromCallback<EventObject, LlmActorInput>(() => undefined);
    // @ts-expect-error the chart invokes no actor named 'search'
    agentMachine.provide({ actors: { search: llm } });
  });
});

describe('EVENT_TRAITS', () => {
  it('says, for every event type and no other, who sends it', () => {
    expectTypeOf(EVENT_TRAITS).toEqualTypeOf<Readonly<Record<AgentEventType, EventTraits>>>();
    expectTypeOf<EventOrigin>().toEqualTypeOf<'caller' | 'store' | AgentActorName>();
    expectTypeOf<AgentActorName>().toEqualTypeOf<
      'llm' | 'tool' | 'postToolsHook' | 'retryTimer' | 'toolGraceTimer' | 'hook' | 'subagent'
    >();
    expectTypeOf<EventTraits>().toEqualTypeOf<{
      origin: EventOrigin;
      streamed?: true;
      displayOnly?: true;
    }>();
    // @ts-expect-error no such event type
    expectTypeOf(EVENT_TRAITS).toHaveProperty('Teleport');
  });
});

describe('diagnostics and effects', () => {
  it('name an actor that threw and a repaired transcript among what pure mode reports', () => {
    expectTypeOf<AgentDiagnosticCode>().toEqualTypeOf<
      | 'MALFORMED_EVENT'
      | 'EVENT_NOT_ACCEPTED'
      | 'AGENT_STOPPED'
      | 'TRANSITION_FAILED'
      | 'ACTOR_FAILED'
      | 'TRANSCRIPT_REPAIRED'
    >();
  });

  it('record the start of a retry backoff with its delay', () => {
    expectTypeOf<Extract<EffectStart, { effect: 'retry' }>>().toEqualTypeOf<{
      effect: 'retry';
      delayMs: number;
    }>();
    expectTypeOf<EffectStart['effect']>().toEqualTypeOf<'llm' | 'tool' | 'hook' | 'retry'>();
  });
});

describe('AgentNotification', () => {
  it('is one value per notification, tagged with its name, narrowing to its payload', () => {
    // `action` is every action as it is, already tagged with its own type: not a value here.
    expectTypeOf<AgentNotification['type']>().toEqualTypeOf<
      Exclude<keyof AgentNotifications, 'action'>
    >();
    type Of<Name extends AgentNotification['type']> = Flat<
      Extract<AgentNotification, { type: Name }>
    >;
    expectTypeOf<Of<'llmStart'>>().toEqualTypeOf<{
      type: 'llmStart';
      attempt: number;
      transcriptIndex: number;
    }>();
    expectTypeOf<Of<'llmEnd'>>().toEqualTypeOf<{
      type: 'llmEnd';
      status: 'completed' | 'failed' | 'interrupted';
      transcriptIndex: number;
    }>();
    expectTypeOf<Of<'text'>>().toEqualTypeOf<{ type: 'text'; text: string }>();
    expectTypeOf<Of<'error'>['source']>().toEqualTypeOf<
      'chart' | 'hook' | 'listener' | 'agent' | 'mcp'
    >();
    expectTypeOf<Of<'toolEnd'>['call']>().toEqualTypeOf<ToolCall>();
    expectTypeOf<Of<'toolEnd'>['outcome']>().toEqualTypeOf<ToolOutcome>();
    expectTypeOf<Of<'diagnostic'>['code']>().toEqualTypeOf<
      AgentDiagnosticCode | StartupDiagnosticCode
    >();
    // @ts-expect-error a text notification carries `text`
    const text: AgentNotification = { type: 'text', content: 'Hi' };
    expectTypeOf(text).toEqualTypeOf<AgentNotification>();
  });
});

describe('AGENT_STATE_NAMES', () => {
  it('lists exactly the seven state names', () => {
    expectTypeOf<(typeof AGENT_STATE_NAMES)[number]>().toEqualTypeOf<AgentStateName>();
  });
});
