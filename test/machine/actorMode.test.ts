/**
 * The same chart run as an XState actor, with scripted test doubles in place of the real LLM,
 * tools, hook and timer: it visits all seven states, and pure mode fed the same events produces
 * the same actions and the same transcript.
 */
import { describe, expect, it } from 'vitest';
import { type AnyEventObject, createActor, fromCallback, type InspectionEvent } from 'xstate';
import {
  AGENT_STATE_NAMES,
  type AgentAction,
  AgentCore,
  type AgentEvent,
  type AgentStateValue,
  agentMachine,
  type LlmActorInput,
  type PostToolsHookInput,
  type RetryTimerInput,
  type ToolActorInput,
  validateEvent,
} from '../../src/index.js';
import { describeStateValue } from '../../src/machine/index.js';
import { call, completed, llmError, textDelta } from '../support/events.js';

/** One scripted model reply: the events the LLM double sends back, in order. */
type Reply = AgentEvent[];

function scriptedActors(replies: Reply[]) {
  const requests: LlmActorInput[] = [];
  return {
    requests,
    actors: {
      llm: fromCallback<AnyEventObject, LlmActorInput>(({ input, sendBack }) => {
        requests.push(input);
        const reply = replies.shift() ?? [llmError('invalid_request', 'script exhausted')];
        // As the real actor does: each attempt says it started before it streams.
        sendBack({ type: 'LlmStarted' } satisfies AgentEvent);
        const timer = setTimeout(() => {
          for (const event of reply) sendBack(event);
        }, 1);
        return () => clearTimeout(timer);
      }),
      tool: fromCallback<AnyEventObject, ToolActorInput>(({ input, sendBack }) => {
        const timer = setTimeout(
          () => {
            sendBack({
              type: 'ToolCompleted',
              callId: input.call.id,
              outcome: { status: 'success', output: `ran ${input.call.name}` },
            } satisfies AgentEvent);
          },
          input.call.name === 'read_file' ? 5 : 1,
        );
        return () => clearTimeout(timer);
      }),
      postToolsHook: fromCallback<AnyEventObject, PostToolsHookInput>(({ input, sendBack }) => {
        const committed = input.completedTools.some((tool) => tool.succeeded);
        const timer = setTimeout(
          () =>
            sendBack({
              type: 'PostToolsHookCompleted',
              actionTaken: committed,
            } satisfies AgentEvent),
          1,
        );
        return () => clearTimeout(timer);
      }),
      retryTimer: fromCallback<AnyEventObject, RetryTimerInput>(({ sendBack }) => {
        const timer = setTimeout(
          () => sendBack({ type: 'RetryTimeoutFired' } satisfies AgentEvent),
          1,
        );
        return () => clearTimeout(timer);
      }),
    },
  };
}

function startAgent(replies: Reply[]) {
  const { actors, requests } = scriptedActors(replies);
  const states: string[] = [];
  const received: AgentEvent[] = [];
  const emitted: AgentAction[] = [];
  const actor = createActor(agentMachine.provide({ actors }), {
    input: { config: { maxRetries: 3 } },
    inspect: (inspection: InspectionEvent) => {
      if (inspection.type === '@xstate.microstep' && inspection.actorRef === actor) {
        const snapshot: object = inspection.snapshot;
        const value =
          'value' in snapshot ? describeStateValue(snapshot.value as AgentStateValue) : '';
        if (states.at(-1) !== value) states.push(value);
      }
      if (inspection.type === '@xstate.event' && inspection.actorRef === actor) {
        if (validateEvent(inspection.event) === null) received.push(inspection.event as AgentEvent);
      }
    },
  });
  actor.on('*', (action) => emitted.push(action));
  // The initial state is entered before any microstep is inspected.
  states.push(describeStateValue(actor.getSnapshot().value));
  actor.start();
  return { actor, states, received, emitted, requests };
}

function untilState(actor: ReturnType<typeof startAgent>['actor'], state: string) {
  return new Promise<void>((resolve) => {
    const check = () => {
      if (describeStateValue(actor.getSnapshot().value) === state) {
        subscription.unsubscribe();
        resolve();
      }
    };
    const subscription = actor.subscribe(check);
    check();
  });
}

describe('actor mode with scripted actors', () => {
  it('drives a session through all seven states', async () => {
    const agent = startAgent([
      [llmError('overloaded', 'Overloaded', 0)],
      [
        textDelta('Reading '),
        textDelta('and editing.'),
        completed('Reading and editing.', [
          call('t1', 'read_file', { path: 'a' }),
          call('t2', 'edit_file'),
        ]),
      ],
      [textDelta('Done.'), completed('Done.')],
    ]);
    agent.actor.send({ type: 'UserInput', message: { role: 'user', content: 'fix the bug' } });
    await untilState(agent.actor, 'WaitingForUserInput.Ready');
    agent.actor.send({ type: 'ShutdownRequested' });

    expect(agent.actor.getSnapshot().status).toBe('done');
    expect(new Set(agent.states.map((state) => state.split(/[. ]/)[0]))).toEqual(
      new Set(AGENT_STATE_NAMES),
    );
    expect(agent.states).toEqual([
      'WaitingForUserInput.Ready',
      // Each request is sized first (it is far below the compaction threshold), then streamed.
      'CallingLlm.Sizing',
      'CallingLlm.Streaming',
      'Error',
      'CallingLlm.Sizing',
      'CallingLlm.Streaming',
      'ProcessingLlmResponse.Deciding',
      'ExecutingTools (Hooks.Idle, Approvals.Idle, Subagents.Idle, Questions.Idle)',
      'PostToolsHook',
      'CallingLlm.Sizing',
      'CallingLlm.Streaming',
      'ProcessingLlmResponse.Deciding',
      'WaitingForUserInput.Ready',
      'ShuttingDown',
    ]);
    expect(agent.requests).toHaveLength(3);
    expect(agent.emitted.map((action) => action.type)).toEqual([
      'WaitForInput',
      'SendLlmRequest',
      'LlmCallEnded',
      'ScheduleRetry',
      'SendLlmRequest',
      'DisplayMessage',
      'DisplayMessage',
      'LlmCallEnded',
      'UsageReported',
      'ExecuteTools',
      'RunPostToolsHook',
      'SendLlmRequest',
      'DisplayMessage',
      'LlmCallEnded',
      'UsageReported',
      'WaitForInput',
      'Shutdown',
    ]);
    expect(
      agent.emitted.flatMap((action) => (action.type === 'SendLlmRequest' ? [action.attempt] : [])),
    ).toEqual([1, 2, 1]);
  });

  it('gives the same actions and transcript as pure mode fed the same events', async () => {
    const agent = startAgent([
      [llmError('rate_limit', '429', 0)],
      [completed(null, [call('t1', 'read_file'), call('t2', 'bash')])],
      [completed('ok')],
    ]);
    agent.actor.send({ type: 'UserInput', message: { role: 'user', content: 'go' } });
    await untilState(agent.actor, 'WaitingForUserInput.Ready');
    // The model's own starts were taken too: pure mode is fed them like any other event.
    expect(agent.received.filter((event) => event.type === 'LlmStarted')).toHaveLength(3);

    const core = new AgentCore({ maxRetries: 3 });
    const pureActions = [
      { type: 'WaitForInput' },
      ...agent.received.flatMap((event) => core.handleEvent(event)),
    ];
    expect(pureActions).toEqual(agent.emitted);
    expect(core.context.messages).toEqual(agent.actor.getSnapshot().context.messages);
    expect(core.stateValue).toEqual(agent.actor.getSnapshot().value);
  });

  it('stops the in-flight model call on Interrupt and keeps the partial text', async () => {
    const agent = startAgent([[textDelta('Half an ans')]]);
    agent.actor.send({ type: 'UserInput', message: { role: 'user', content: 'go' } });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(agent.actor.getSnapshot().children.llm).toBeDefined();
    agent.actor.send({ type: 'Interrupt' });
    const snapshot = agent.actor.getSnapshot();
    expect(snapshot.value).toEqual({ WaitingForUserInput: 'Ready' });
    expect(snapshot.children.llm).toBeUndefined();
    expect(snapshot.context.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Half an ans' }],
    });
    agent.actor.stop();
  });
});
