/**
 * The agent's loop as one XState v5 statechart: Loom's seven states, with interrupts, queued
 * input, permissions and approvals, and the waits nested inside them. This file is the chart:
 * states, transitions, guards and the names of actions; each action is a plain function in the
 * files beside it. No I/O happens here: the invoked actors (`llm`, `tool`, `postToolsHook`,
 * `retryTimer`, `toolGraceTimer`) are declared by name and supplied with `machine.provide`, and
 * every `AgentAction` is an emitted event, which is what pure mode returns and what actor mode
 * reports to listeners.
 */
import { and, not } from 'xstate';
import { changedPathsOf } from './changedPathsOf.js';
import { chart, performAll } from './chartSetup.js';
import { createInitialContext } from './context.js';
import * as compaction from './compactionActions.js';
import * as hookAndRetry from './hookAndRetryActions.js';
import * as modelCall from './modelCallActions.js';
import * as response from './responseActions.js';
import * as stream from './streamActions.js';
import * as toolCalls from './toolCallActions.js';
import * as toolHooks from './toolHookActions.js';
import { completedToolsOf } from './toolRuns.js';
import { compactionRequest } from './compaction.js';
import type { AgentContext } from './context.js';
import { buildRequest } from './transcript.js';
import * as turns from './turnActions.js';
import * as turnHooks from './turnHookActions.js';
import { preCompactHookInput, promptHookInput, stopHookInput } from './turnHookInputs.js';

/**
 * The agent statechart. Use it through `AgentCore` (pure mode) or `createAgent` (actor mode), or
 * directly with your own actors, each answering with the chart's own events (an actor that fails
 * reports it as one: an `LlmError`, an error `ToolCompleted`, …):
 *
 * @example
 * import { createActor } from 'xstate';
 * const actor = createActor(
 *   agentMachine.provide({ actors: { llm: myLlm, tool: myTool, postToolsHook: myHook, retryTimer: myTimer } }),
 *   { input: { config: { maxRetries: 3 } } },
 * );
 * actor.on('SendLlmRequest', ({ request }) => console.log(request.messages.length));
 * actor.start();
 * actor.send({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
 */
export const agentMachine = chart
  .extend({
    actions: {
      ...performAll(turns),
      ...performAll(modelCall),
      ...performAll(response),
      ...performAll(toolCalls),
      ...performAll(toolHooks),
      ...performAll(hookAndRetry),
      ...performAll(turnHooks),
      ...performAll(compaction),
      // The hottest transitions of a turn: plain assign and emit, no action queue.
      appendStreamedText: chart.assign(({ context, event }) =>
        stream.appendStreamedText(context, event),
      ),
      showStreamedText: chart.emit(({ event }) => stream.streamedTextShown(event)),
      appendToolCallFragment: chart.assign(({ context, event }) =>
        stream.appendToolCallFragment(context, event),
      ),
      recordToolProgress: chart.assign(({ context, event }) =>
        stream.recordToolProgress(context, event),
      ),
    },
  })
  .createMachine({
    id: 'agent',
    context: ({ input }) => createInitialContext(input),
    initial: 'WaitingForUserInput',
    on: {
      // Input that names its turn's answer form would lose it in the queue: it is refused.
      UserInput: { guard: not('carriesOutput'), actions: 'enqueueInput' },
      SetPermissionMode: { actions: 'setPermissionMode' },
      // A new tool list (an MCP server's changed) reaches the next request wherever the chart
      // stands; calls already made keep their course (see setTools).
      SetTools: { actions: 'setTools' },
      ShutdownRequested: { target: '.ShuttingDown' },
    },
    states: {
      WaitingForUserInput: {
        entry: 'announceIdle',
        initial: 'Ready',
        states: {
          Ready: {
            always: [
              // The hook sees every prompt, even one that a spent budget keeps from the model:
              // a prompt it would block must not reach the transcript.
              {
                guard: and(['hasQueuedInput', 'promptHookOn']),
                target: 'CheckingPrompt',
                actions: 'holdQueuedPrompt',
              },
              // Once the budget is spent, input goes into the transcript without a model call.
              {
                guard: and(['hasQueuedInput', 'budgetSpent']),
                target: '#agent.WaitingForUserInput',
                reenter: true,
                actions: ['startQueuedTurn', 'stopAtLimit'],
              },
              { guard: 'hasQueuedInput', target: '#agent.CallingLlm', actions: 'startQueuedTurn' },
            ],
            on: {
              UserInput: [
                { guard: 'promptHookOn', target: 'CheckingPrompt', actions: 'holdPrompt' },
                {
                  guard: 'budgetSpent',
                  target: '#agent.WaitingForUserInput',
                  reenter: true,
                  actions: ['startTurn', 'stopAtLimit'],
                },
                { target: '#agent.CallingLlm', actions: 'startTurn' },
              ],
              Compact: [
                { guard: not('compactable'), actions: 'reportNothingToCompact' },
                {
                  guard: 'preCompactHookOn',
                  target: 'CheckingCompaction',
                  actions: 'beginRequestedCompaction',
                },
                { target: 'Compacting', actions: 'beginRequestedCompaction' },
              ],
            },
          },
          // A compaction a `Compact` event asked for; input that comes meanwhile queues.
          ...compactionStates('Ready'),
          // The prompt at the head of the queue waits for the caller's userPromptSubmit hook;
          // input that comes meanwhile queues behind it.
          CheckingPrompt: {
            entry: 'runPromptHook',
            invoke: {
              id: 'promptHook',
              src: 'hook',
              input: ({ context }) => promptHookInput(context),
            },
            on: {
              UserPromptSubmitDecision: [
                {
                  guard: 'promptBlocked',
                  target: '#agent.WaitingForUserInput',
                  reenter: true,
                  actions: 'blockPrompt',
                },
                {
                  guard: 'budgetSpent',
                  target: '#agent.WaitingForUserInput',
                  reenter: true,
                  actions: ['startCheckedTurn', 'stopAtLimit'],
                },
                { target: '#agent.CallingLlm', actions: 'startCheckedTurn' },
              ],
              Interrupt: {
                target: '#agent.WaitingForUserInput',
                reenter: true,
                actions: 'withdrawPrompt',
              },
              ShutdownRequested: { target: '#agent.ShuttingDown', actions: 'cancelHook' },
              Resume: { target: 'CheckingPrompt', reenter: true },
            },
          },
          // Tool calls an interrupt aborted report how they really ended; input waits its turn.
          SettlingCancelledCalls: {
            invoke: {
              id: 'toolGraceTimer',
              src: 'toolGraceTimer',
              input: ({ context }) => ({ delayMs: context.config.toolGraceMs }),
            },
            always: { guard: not('toolsSettling'), target: 'Ready', actions: 'answerToolCalls' },
            on: {
              ToolCompleted: { guard: 'isCancellingToolCall', actions: 'settleCancelledCall' },
              ToolGraceExpired: { actions: 'expireCancelledCalls' },
              Resume: { actions: 'expireCancelledCalls' },
              ShutdownRequested: { target: '#agent.ShuttingDown', actions: 'shutDownToolCalls' },
            },
          },
        },
      },
      CallingLlm: {
        initial: 'Sizing',
        states: {
          // A request that would pass the compaction threshold compacts the transcript first.
          Sizing: {
            always: [
              { guard: not('compactionDue'), target: 'Streaming' },
              {
                guard: 'preCompactHookOn',
                target: 'CheckingCompaction',
                actions: 'beginCompaction',
              },
              { target: 'Compacting', actions: 'beginCompaction' },
            ],
          },
          ...compactionStates('Streaming'),
          Streaming: {
            entry: 'sendLlmRequest',
            invoke: {
              id: 'llm',
              src: 'llm',
              input: ({ context }) => ({ request: buildRequest(context) }),
            },
            on: {
              LlmStarted: { actions: 'clearStream' },
              LlmTextDelta: { actions: ['appendStreamedText', 'showStreamedText'] },
              LlmToolCallDelta: { actions: 'appendToolCallFragment' },
              LlmCompleted: { target: '#agent.ProcessingLlmResponse', actions: 'recordResponse' },
              LlmError: [
                {
                  guard: and(['retryableError', 'attemptsLeft']),
                  target: '#agent.Error',
                  actions: 'recordRetryableError',
                },
                { target: '#agent.WaitingForUserInput', actions: 'giveUp' },
              ],
              Interrupt: { target: '#agent.WaitingForUserInput', actions: 'keepStreamedText' },
              ShutdownRequested: { target: '#agent.ShuttingDown', actions: 'keepStreamedText' },
              Resume: { target: 'Streaming', reenter: true },
            },
          },
        },
      },
      ProcessingLlmResponse: {
        initial: 'Deciding',
        states: {
          Deciding: {
            always: [
              {
                guard: 'responseRefused',
                target: '#agent.WaitingForUserInput',
                actions: ['refuseToolCalls', 'reportStopReason'],
              },
              { guard: 'hasToolCalls', target: '#agent.ExecutingTools' },
              { guard: 'outputAskable', target: '#agent.CallingLlm', actions: 'askForOutput' },
              { guard: 'stopHookDue', target: 'CheckingStop' },
              {
                target: '#agent.WaitingForUserInput',
                actions: ['reportStopReason', 'endOutputTurn'],
              },
            ],
          },
          // The model ended its response without a tool call: the caller's stop hook may have
          // the turn go on, once.
          CheckingStop: {
            entry: 'runStopHook',
            invoke: { id: 'stopHook', src: 'hook', input: ({ context }) => stopHookInput(context) },
            on: {
              StopDecision: [
                {
                  guard: 'turnContinued',
                  target: '#agent.CallingLlm',
                  actions: ['reportStopReason', 'continueTurn'],
                },
                {
                  target: '#agent.WaitingForUserInput',
                  actions: ['reportStopHookFailure', 'reportStopReason', 'endOutputTurn'],
                },
              ],
              Interrupt: {
                target: '#agent.WaitingForUserInput',
                actions: ['cancelHook', 'reportStopReason', 'endOutputTurn'],
              },
              ShutdownRequested: { target: '#agent.ShuttingDown', actions: 'cancelHook' },
              Resume: { target: 'CheckingStop', reenter: true },
            },
          },
        },
      },
      // The calls of one response, run in parallel; beside them, in regions of their own, the
      // waits: the caller's tool hooks, a person's approvals and the questions of `ask_user`
      // calls. A wait is entered
      // when a call starts waiting and left when none does; the state itself is left once
      // every call has its outcome, whatever the regions stand at.
      ExecutingTools: {
        type: 'parallel',
        entry: 'startToolCalls',
        always: [
          {
            guard: and(['allToolsDone', 'anyMutatingToolSucceeded']),
            target: 'PostToolsHook',
            actions: 'answerToolCalls',
          },
          {
            guard: and(['allToolsDone', 'outputSettled']),
            target: 'WaitingForUserInput',
            actions: ['answerToolCalls', 'endOutputTurn'],
          },
          {
            guard: and(['allToolsDone', 'limitReached']),
            target: 'WaitingForUserInput',
            actions: ['answerToolCalls', 'stopAtLimit'],
          },
          { guard: 'allToolsDone', target: 'CallingLlm', actions: 'answerToolCalls' },
        ],
        on: {
          ToolCompleted: { guard: 'isRunningToolCall', actions: 'recordToolOutcome' },
          ToolProgress: { guard: 'isRunningToolCall', actions: 'recordToolProgress' },
          SetPermissionMode: { actions: ['setPermissionMode', 'recheckApprovals'] },
          Interrupt: [
            {
              guard: 'toolCallsNeedGrace',
              target: 'WaitingForUserInput.SettlingCancelledCalls',
              actions: 'abortToolCalls',
            },
            { target: 'WaitingForUserInput', actions: 'interruptToolCalls' },
          ],
          ShutdownRequested: { target: 'ShuttingDown', actions: 'shutDownToolCalls' },
          Resume: { actions: 'resumeToolCalls' },
        },
        states: {
          Hooks: {
            initial: 'Idle',
            states: {
              Idle: { always: { guard: 'toolHooksRunning', target: 'Running' } },
              Running: {
                always: { guard: not('toolHooksRunning'), target: 'Idle' },
                on: {
                  PreToolUseDecision: { guard: 'isAwaitedHookAnswer', actions: 'applyPreToolUse' },
                  PostToolUseResult: { guard: 'isAwaitedHookAnswer', actions: 'applyPostToolUse' },
                },
              },
            },
          },
          Approvals: {
            initial: 'Idle',
            states: {
              Idle: { always: { guard: 'approvalsWaiting', target: 'Waiting' } },
              Waiting: {
                always: { guard: not('approvalsWaiting'), target: 'Idle' },
                on: {
                  ToolApproval: { guard: 'isAwaitingApproval', actions: 'applyApproval' },
                },
              },
            },
          },
          // A task call waits for its subagent, whose final answer is the call's result.
          Subagents: {
            initial: 'Idle',
            states: {
              Idle: { always: { guard: 'subagentsRunning', target: 'Running' } },
              Running: { always: { guard: not('subagentsRunning'), target: 'Idle' } },
            },
          },
          Questions: {
            initial: 'Idle',
            states: {
              Idle: { always: { guard: 'questionsWaiting', target: 'Waiting' } },
              Waiting: {
                always: { guard: not('questionsWaiting'), target: 'Idle' },
                on: {
                  UserAnswer: { guard: 'answersOpenQuestions', actions: 'applyAnswer' },
                },
              },
            },
          },
        },
      },
      PostToolsHook: {
        entry: 'runPostToolsHook',
        invoke: {
          id: 'postToolsHook',
          src: 'postToolsHook',
          input: ({ context }) => ({
            completedTools: completedToolsOf(context.toolRuns),
            calls: context.toolRuns.map((run) => run.call),
            changedPaths: changedPathsOf(context.toolRuns),
          }),
        },
        on: {
          PostToolsHookCompleted: [
            {
              guard: 'outputSettled',
              target: 'WaitingForUserInput',
              actions: ['reportHookFailure', 'endOutputTurn'],
            },
            {
              guard: 'limitReached',
              target: 'WaitingForUserInput',
              actions: ['reportHookFailure', 'stopAtLimit'],
            },
            { target: 'CallingLlm', actions: 'reportHookFailure' },
          ],
          Interrupt: { target: 'WaitingForUserInput', actions: 'cancelHook' },
          ShutdownRequested: { target: 'ShuttingDown', actions: 'cancelHook' },
          Resume: { target: 'PostToolsHook', reenter: true },
        },
      },
      Error: {
        entry: 'announceRetry',
        invoke: {
          id: 'retryTimer',
          src: 'retryTimer',
          input: ({ context }) => ({ delayMs: context.retryDelayMs, attempt: context.retries + 1 }),
        },
        on: {
          RetryTimeoutFired: { target: 'CallingLlm' },
          Interrupt: { target: 'WaitingForUserInput', actions: 'cancelRetry' },
          ShutdownRequested: { target: 'ShuttingDown', actions: 'cancelRetry' },
          Resume: { target: 'Error', reenter: true, actions: 'resumeRetryDelay' },
        },
      },
      ShuttingDown: {
        type: 'final',
        entry: 'announceShutdown',
      },
    },
  });

/**
 * The two states of a compaction, the same in `WaitingForUserInput` (asked for by a `Compact`
 * event) and in `CallingLlm` (before a request that would pass the threshold): the `preCompact`
 * hook decides, then the model summarises; either way the chart goes on to `done`. An interrupt
 * or a shutdown abandons it and leaves the transcript as it was.
 */
function compactionStates<Done extends string>(done: Done) {
  return {
    CheckingCompaction: {
      entry: 'runPreCompactHook',
      invoke: {
        id: 'preCompactHook',
        src: 'hook',
        input: ({ context }: { context: AgentContext }) => preCompactHookInput(context),
      },
      on: {
        PreCompactDecision: [
          { guard: 'compactionBlocked', target: done, actions: 'blockCompaction' },
          { target: 'Compacting', actions: 'applyPreCompactDecision' },
        ],
        Interrupt: {
          target: '#agent.WaitingForUserInput',
          reenter: true,
          actions: 'abandonCompactionCheck',
        },
        ShutdownRequested: { target: '#agent.ShuttingDown', actions: 'abandonCompactionCheck' },
        Resume: { target: 'CheckingCompaction', reenter: true },
      },
    },
    Compacting: {
      entry: 'sendCompactionRequest',
      invoke: {
        id: 'llm',
        src: 'llm',
        input: ({ context }: { context: AgentContext }) => ({
          request: compactionRequest(context),
        }),
      },
      on: {
        // The summary is not shown as it streams: only the whole of it counts.
        LlmStarted: {},
        LlmTextDelta: {},
        LlmToolCallDelta: {},
        LlmCompleted: { target: done, actions: 'compactTranscript' },
        LlmError: { target: done, actions: 'failCompaction' },
        Interrupt: {
          target: '#agent.WaitingForUserInput',
          reenter: true,
          actions: 'abandonCompaction',
        },
        ShutdownRequested: { target: '#agent.ShuttingDown', actions: 'abandonCompaction' },
        Resume: { target: 'Compacting', reenter: true },
      },
    },
  } as const;
}

/**
 * The type of the agent machine, for code that provides its actors or reads its snapshots.
 *
 * @example
 * function withActors(machine: AgentMachine) { return machine.provide({ actors: { … } }); }
 */
export type AgentMachine = typeof agentMachine;
