/**
 * The configurations the chart is walked in, each with the model answers it offers. Each is
 * small on purpose: two attempts per model call keep the retry counter to {0, 1}, and a
 * handful of tools keep the tool-run lists short, so the abstract graph stays in the hundreds of
 * states while the two walks together still reach every transition.
 */
import type { AgentConfig, AgentEvent } from '../../src/index.js';
import { failures, replies } from './modelReplies.js';

/** One configuration of the walk and the events it offers beyond the ever-present ones. */
export interface GraphVariant {
  name: string;
  config: AgentConfig;
  /** Model replies offered in `CallingLlm.Streaming`. */
  replies: readonly AgentEvent[];
  /** Model-call failures offered in `CallingLlm.Streaming`. */
  failures: readonly AgentEvent[];
  /**
   * Whether to offer streaming fragments, tool progress, failed tool outcomes, actor crashes
   * and the tool list sent again. They do not depend on permissions, so one variant offering
   * them is enough.
   */
  everyOutcome: boolean;
  /**
   * Whether to offer interrupts, shutdowns and input while busy only as long as the permission
   * settings are the configured ones. Each of them doubles the states of a turn, and what they
   * do does not depend on the mode, only on the tool runs, which the configured mode already
   * puts in every status.
   */
  busyEventsOnlyWhenFresh: boolean;
  /** Whether to offer `Compact` (a compaction asked for between turns) in `Ready`. */
  compact?: boolean;
}

/** A read-only tool and an edit: what most variants need of tools. */
const READ_AND_EDIT = [
  { name: 'read_file', mutating: false },
  { name: 'edit_file', mutating: true },
];

/** Loom's behaviour: no permissions, so every tool call runs at once. Every outcome is offered. */
export const openVariant: GraphVariant = {
  name: 'open',
  config: {
    maxRetries: 2,
    tools: READ_AND_EDIT,
  },
  replies: [
    replies.text,
    replies.readOnly,
    replies.mutating,
    replies.mixed,
    replies.refusal,
    replies.maxTokens,
    replies.invalidToolInput,
    replies.empty,
  ],
  failures: [failures.rateLimitedWithRetryAfter, failures.serverError, failures.unauthorized],
  everyOutcome: true,
  busyEventsOnlyWhenFresh: false,
};

/**
 * Permissions on, in the `default` mode: mutating calls wait for a `ToolApproval`, and mode
 * changes re-check the waiting calls. `bash` is mutating but not an edit, so `acceptEdits` still
 * asks for it. Its replies are the ones permissions treat differently.
 */
export const permissionsVariant: GraphVariant = {
  name: 'permissions',
  config: {
    maxRetries: 2,
    tools: [
      { name: 'read_file', mutating: false },
      { name: 'edit_file', mutating: true },
      { name: 'bash', mutating: true },
    ],
    permissions: { mode: 'default' },
  },
  replies: [replies.text, replies.mixed, replies.twoEdits, replies.editAndShell],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: true,
};

/**
 * A session with a spending limit its first response reaches: the turn stops before the next
 * model call, and input after it goes into the transcript without one. (`maxTurns` stops a turn
 * through the same guard, `limitReached`.)
 */
export const limitsVariant: GraphVariant = {
  name: 'limits',
  config: {
    maxRetries: 2,
    tools: READ_AND_EDIT,
    // A reply's 10 input and 5 output tokens cost $0.000105: the first one spends the budget.
    pricing: { 'claude-sonnet-5-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 } },
    maxBudgetUsd: 0.0001,
  },
  replies: [replies.text, replies.readOnly, replies.mutating],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: false,
};

/**
 * Every turn ends with a structured answer: given with the `final_answer` call (alone, or after
 * an edit and the post-tools hook), asked for again once after a reply without it or with input
 * that does not match, then given up on.
 */
export const outputVariant: GraphVariant = {
  name: 'output',
  config: {
    maxRetries: 2,
    tools: READ_AND_EDIT,
    output: {
      schema: { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] },
    },
  },
  replies: [
    replies.text,
    replies.answer,
    replies.editAndAnswer,
    replies.invalidAnswer,
    replies.editAndInvalidAnswer,
  ],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: true,
};

/**
 * Asking the user, beside approvals: a question alone, a question while an edit waits for
 * approval (both waits at once, in the default mode), and questions the chart refuses as
 * malformed.
 */
export const questionsVariant: GraphVariant = {
  name: 'questions',
  config: {
    maxRetries: 2,
    tools: READ_AND_EDIT,
    permissions: { mode: 'default' },
    askUser: true,
  },
  replies: [replies.text, replies.question, replies.questionAndEdit, replies.malformedQuestion],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: true,
};

/**
 * The caller's tool hooks, before and after every call, in the default mode: a hook's every
 * decision meets the permission check, and the hook's failures (its actor crashing) fail closed
 * before a call and open after one.
 */
export const hooksVariant: GraphVariant = {
  name: 'hooks',
  config: {
    maxRetries: 2,
    tools: READ_AND_EDIT,
    permissions: { mode: 'default' },
    hooks: { preToolUse: true, postToolUse: true },
  },
  replies: [replies.text, replies.readOnly, replies.mutating],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: true,
};

/**
 * The caller's hooks on a turn: every prompt waits for the `userPromptSubmit` hook (which blocks
 * it, lets it through, adds a note to it, or fails open), and every response that would end the
 * turn waits for the `stop` hook (which has the turn go on once, ends it, or fails open). A
 * read-only call puts a tool round between the prompt and the end of the turn, and an empty
 * reply gives the stop hook a turn whose response was not kept. No permissions: the hooks on a
 * turn do not meet them.
 */
export const turnHooksVariant: GraphVariant = {
  name: 'turnHooks',
  config: {
    maxRetries: 2,
    tools: READ_AND_EDIT,
    hooks: { userPromptSubmit: true, stop: true },
  },
  replies: [replies.text, replies.readOnly, replies.empty],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: false,
};

/**
 * The `userPromptSubmit` hook once the budget is spent: it still sees every prompt, and one it
 * lets through goes into the transcript without a model call (the first reply spends the budget,
 * as in `limitsVariant`, so the key's `limit` tells the states apart).
 */
export const promptHookLimitsVariant: GraphVariant = {
  name: 'promptHookLimits',
  config: { ...limitsVariant.config, hooks: { userPromptSubmit: true } },
  replies: [replies.text],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: false,
};

/**
 * A context window small enough for the walk to fill: a reply that says its request took
 * `FULL_WINDOW_TOKENS` passes the threshold, so the next request compacts first; every other
 * reply, and a compacted transcript, stay far below it. Only the latest exchange is kept.
 */
export const COMPACTING_WINDOW = { contextWindow: 2000, threshold: 0.5, keepRecentTokens: 0 };

/**
 * Compaction: a request that would pass the threshold compacts the transcript first (between
 * turns, and in a turn after a tool round, where the kept part starts with the call whose
 * result follows), and `Compact` asks for one between turns, with instructions or without and
 * whether or not there is anything to summarise yet. The summary call answers, answers with
 * nothing, fails or crashes.
 */
export const compactionVariant: GraphVariant = {
  name: 'compaction',
  config: { maxRetries: 2, tools: READ_AND_EDIT, compaction: COMPACTING_WINDOW },
  replies: [replies.text, replies.fullText, replies.fullReadOnly],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: false,
  compact: true,
};

/**
 * Compaction with the `preCompact` hook: every compaction, before a request or asked for, waits
 * for the hook, which lets it go on (adding instructions or not), vetoes it, or fails open.
 */
export const preCompactHookVariant: GraphVariant = {
  ...compactionVariant,
  name: 'preCompactHook',
  config: { ...compactionVariant.config, hooks: { preCompact: true } },
};

/**
 * Subagents: the model hands a sub-task to the `reviewer` agent with the built-in `task` tool,
 * alone or beside a read (the call waits in `Subagents.Running` while the read runs and after
 * it ends), or for an agent that does not exist (answered at once, nothing started). The
 * subagent answers with what it used, fails, or its actor crashes; an interrupt aborts it like
 * any call. No permissions: a task call is not mutating, so no mode asks for it.
 */
export const subagentsVariant: GraphVariant = {
  name: 'subagents',
  config: {
    maxRetries: 2,
    tools: READ_AND_EDIT,
    agents: {
      reviewer: {
        description: 'Reviews a file for mistakes; changes nothing',
        tools: ['read_file'],
      },
    },
  },
  replies: [replies.text, replies.task, replies.taskAndRead, replies.invalidTask],
  failures: [],
  everyOutcome: false,
  busyEventsOnlyWhenFresh: false,
};

export const graphVariants: readonly GraphVariant[] = [
  openVariant,
  permissionsVariant,
  limitsVariant,
  outputVariant,
  questionsVariant,
  hooksVariant,
  turnHooksVariant,
  promptHookLimitsVariant,
  compactionVariant,
  preCompactHookVariant,
  subagentsVariant,
];
