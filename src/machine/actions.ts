/**
 * What the chart asks the outside world to do, and what it tells it. In pure mode `handleEvent`
 * returns these; in actor mode the invoked actors do the work and the agent emits the same
 * objects for listeners.
 */
import type { UserQuestion } from './askUser.js';
import type { CompactionTrigger } from './compaction.js';
import type { SubagentActorInput } from './subagents.js';
import type { LlmRequest, Message, ToolCall, ToolOutcome } from './messages.js';
import type { TokenUsage, UsageTotals } from './usage.js';

/**
 * How a model call ended, and where in the transcript its response went: `completed` (the
 * response is at `transcriptIndex`), `interrupted` (the text streamed so far is there, if any
 * came) or `failed` (nothing is; what it streamed is dropped).
 *
 * @example
 * const ending: LlmCallEnding = { status: 'completed', transcriptIndex: 3 };
 */
export interface LlmCallEnding {
  status: 'completed' | 'failed' | 'interrupted';
  transcriptIndex: number;
}

/** A tool as `RunPostToolsHook` reports it (Loom's shape). */
export interface CompletedToolInfo {
  name: string;
  succeeded: boolean;
}

/**
 * Every action the chart emits:
 *
 * - `SendLlmRequest`: make a model call (`attempt` counts from 1 within the call; its response
 *   goes to the transcript at `request.messages.length`);
 * - `LlmCallEnded`: the model call ended (see {@link LlmCallEnding});
 * - `UsageReported`: what a completed model call used and cost, and the turn's and the
 *   session's sums with it;
 * - `ExecuteTools`: run these tool calls;
 * - `StartSubagent`: run this task call's subagent on its task (see `SubagentActorInput`), then
 *   send its final answer as the call's `ToolCompleted`;
 * - `RunPostToolsHook`: run the post-tools hook (git auto-commit);
 * - `WaitForInput`: the turn is over;
 * - `DisplayMessage`: show streamed text;
 * - `DisplayError`: show a failure (`source` is `hook` for a post-tools hook that failed);
 * - `Shutdown`: the agent stopped; queued input was discarded;
 * - `ScheduleRetry`: wait `delayMs`, then send `RetryTimeoutFired`;
 * - `RequestApproval`: a call waits for a `ToolApproval`;
 * - `AskUser`: an `ask_user` call's questions wait for the user's `UserAnswer`;
 * - `RunPreToolUseHook`: run the `preToolUse` hook on a call, then send `PreToolUseDecision`;
 * - `RunPostToolUseHook`: run the `postToolUse` hook on a call that ran, then send
 *   `PostToolUseResult`;
 * - `RunUserPromptSubmitHook`: run the `userPromptSubmit` hook on a prompt, then send
 *   `UserPromptSubmitDecision`;
 * - `RunStopHook`: run the `stop` hook on the response that would end the turn, then send
 *   `StopDecision`;
 * - `PromptDropped`: this prompt started no turn and the model never saw it: the
 *   `userPromptSubmit` hook blocked it, or an interrupt came before the hook decided;
 * - `SendCompactionRequest`: make the model call that summarises what a compaction replaces; it
 *   is answered as any model call is (`LlmCompleted`, `LlmError`), and its text is not shown;
 * - `RunPreCompactHook`: run the `preCompact` hook on the compaction about to start, then send
 *   `PreCompactDecision`;
 * - `Compacted`: the transcript is now the summary and the messages after the cut (the stored
 *   log keeps what it replaced);
 * - `CompactionSkipped`: a compaction did not happen (the hook vetoed it, the summary failed, or
 *   there was nothing to summarise); the transcript is as it was;
 * - `OutputGiven`: the turn ends with its answer in the form it asked for (see `OutputSpec`);
 * - `Cancel`: abort this in-flight work.
 *
 * @example
 * for (const action of core.handleEvent(event)) {
 *   if (action.type === 'SendLlmRequest') callModel(action.request);
 * }
 */
export type AgentAction =
  | { type: 'SendLlmRequest'; request: LlmRequest; attempt: number }
  | ({ type: 'LlmCallEnded' } & LlmCallEnding)
  | {
      type: 'UsageReported';
      /** The model that answered. */
      model: string;
      call: TokenUsage & { costUsd: number | null };
      turn: UsageTotals;
      session: UsageTotals;
    }
  | { type: 'ExecuteTools'; calls: ToolCall[] }
  | ({ type: 'StartSubagent' } & SubagentActorInput)
  | { type: 'RunPostToolsHook'; completedTools: CompletedToolInfo[] }
  | { type: 'WaitForInput' }
  | { type: 'DisplayMessage'; text: string }
  | { type: 'DisplayError'; message: string; source?: 'hook' }
  | { type: 'Shutdown'; discardedInput: Message[] }
  | { type: 'ScheduleRetry'; delayMs: number; attempt: number }
  | { type: 'RequestApproval'; call: ToolCall }
  | { type: 'AskUser'; callId: string; questions: UserQuestion[] }
  | { type: 'RunPreToolUseHook'; call: ToolCall }
  | { type: 'RunPostToolUseHook'; call: ToolCall; outcome: ToolOutcome }
  | { type: 'RunUserPromptSubmitHook'; prompt: Message }
  | { type: 'RunStopHook'; response: Message | null }
  | { type: 'PromptDropped'; prompt: Message; reason: string }
  | { type: 'SendCompactionRequest'; request: LlmRequest; trigger: CompactionTrigger }
  | {
      type: 'RunPreCompactHook';
      trigger: CompactionTrigger;
      /** How many messages the summary would replace. */
      summarised: number;
      instructions: string[];
    }
  | {
      type: 'Compacted';
      trigger: CompactionTrigger;
      summary: string;
      /** How many messages the summary replaced, and how many stayed after it. */
      summarised: number;
      kept: number;
    }
  | { type: 'CompactionSkipped'; trigger: CompactionTrigger; reason: string }
  | { type: 'OutputGiven'; output: unknown }
  | {
      type: 'Cancel';
      llm?: boolean;
      /** Tool calls to abort (and approval requests to withdraw). */
      toolCallIds?: string[];
      /**
       * Report how each aborted call actually ended (a `ToolCompleted`) within this many
       * milliseconds, then send `ToolGraceExpired`.
       */
      graceMs?: number;
      /** The hook that runs alone: the post-tools hook, `userPromptSubmit`, `preCompact` or `stop`. */
      hook?: boolean;
      retry?: boolean;
    };

/** The `type` of every action. */
export type AgentActionType = AgentAction['type'];
