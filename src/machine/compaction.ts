/**
 * Compaction, as pure functions of the context: how big the next request is likely to be, where
 * the transcript may be cut (never between a `tool_use` and its `tool_result`, never inside a
 * message), the request that asks the model for a summary, and the transcript that replaces the
 * older part with it. The chart decides when (`CallingLlm.Compacting`,
 * `WaitingForUserInput.Compacting`); these say what.
 */
import type { CompactionConfig } from './config.js';
import type { AgentContext } from './context.js';
import { appendedUserText } from './chartStep.js';
import type { LlmRequest, Message } from './messages.js';
import { buildRequest } from './transcript.js';

/**
 * The compaction settings with every default filled in; `null` in the config when only a
 * `Compact` event compacts.
 *
 * @example
 * const settings: ResolvedCompaction = resolveCompaction({});
 * settings.threshold; // 0.8
 */
export interface ResolvedCompaction {
  contextWindow: number;
  threshold: number;
  keepRecentTokens: number;
  instructions: string | null;
}

/** Why a compaction runs: a request would pass the threshold, or a `Compact` event asked. */
export type CompactionTrigger = 'auto' | 'manual';

/**
 * The compaction underway: why it runs, and what the summary must keep besides the package's
 * own instructions (the configuration's, the `Compact` event's, the `preCompact` hook's).
 *
 * @example
 * const underway: CompactionUnderway = { trigger: 'manual', instructions: ['Keep the API design.'], checked: true };
 */
export interface CompactionUnderway {
  trigger: CompactionTrigger;
  instructions: string[];
  /** The `preCompact` hook answered (or is off): the summary is being written. */
  checked: boolean;
}

/** Every current Claude model's context window, in tokens. */
export const DEFAULT_CONTEXT_WINDOW = 200_000;

/** The share of the context window a request may fill before it compacts first. */
export const DEFAULT_COMPACTION_THRESHOLD = 0.8;

/** The fewest messages a compaction summarises: less would not make the transcript smaller. */
const FEWEST_SUMMARISED = 2;

/**
 * The settings of `compaction`, checked, with its defaults; `problem` names the field that is
 * wrong and what it takes.
 *
 * @example
 * resolveCompaction({ contextWindow: 1_000_000 }).keepRecentTokens; // 100000
 */
export function resolveCompaction(
  config: CompactionConfig | false | undefined,
  refuse: (field: string, expected: string, got: unknown) => never,
): ResolvedCompaction | null {
  if (config === false) return null;
  if (config !== undefined && (typeof config !== 'object' || config === null)) {
    refuse('compaction', 'an object of settings, or false', config);
  }
  const settings = config ?? {};
  const contextWindow = settings.contextWindow ?? DEFAULT_CONTEXT_WINDOW;
  if (!Number.isInteger(contextWindow) || contextWindow < 1_000) {
    refuse('compaction.contextWindow', 'a whole number of tokens, at least 1000', contextWindow);
  }
  const threshold = settings.threshold ?? DEFAULT_COMPACTION_THRESHOLD;
  if (typeof threshold !== 'number' || !(threshold > 0 && threshold <= 1)) {
    refuse(
      'compaction.threshold',
      'a share of the context window, above 0 and at most 1',
      threshold,
    );
  }
  const keepRecentTokens = settings.keepRecentTokens ?? Math.round(contextWindow / 10);
  if (!Number.isInteger(keepRecentTokens) || keepRecentTokens < 0) {
    refuse('compaction.keepRecentTokens', 'a whole number of tokens', keepRecentTokens);
  }
  const { instructions } = settings;
  if (instructions !== undefined && typeof instructions !== 'string') {
    refuse('compaction.instructions', 'a string', instructions);
  }
  return { contextWindow, threshold, keepRecentTokens, instructions: instructions ?? null };
}

/**
 * A rough count of the tokens a value takes in a request: a token for every four characters of
 * its JSON, which errs on the high side for prose and code.
 *
 * @example
 * estimateTokens({ role: 'user', content: 'hi' }); // 8
 */
export function estimateTokens(value: unknown): number {
  return Math.ceil((JSON.stringify(value)?.length ?? 0) / 4);
}

/**
 * About how many tokens the next request takes: what the API counted for the transcript as of
 * the latest response, and an estimate of what was added since; an estimate of all of it before
 * any response (or after a compaction).
 *
 * @example
 * requestTokens(core.context); // 152340
 */
export function requestTokens(
  context: Pick<AgentContext, 'messages' | 'window' | 'config'>,
): number {
  const { measured } = context.window;
  const { messages, config } = context;
  if (measured !== null && measured.messages <= messages.length) {
    let tokens = measured.tokens;
    for (let index = measured.messages; index < messages.length; index++) {
      tokens += estimateTokens(messages[index]);
    }
    return tokens;
  }
  return (
    estimateTokens(messages) +
    estimateTokens(config.system) +
    estimateTokens(config.toolDefinitions)
  );
}

/**
 * Where the transcript may be cut, keeping about `keepRecentTokens` of the latest messages: the
 * index of the first message kept, an assistant message (so each kept `tool_result` keeps the
 * `tool_use` it answers, and the summary, a user message, comes before it). `null` when there
 * is nothing worth summarising.
 *
 * @example
 * compactionSplit(core.context); // 42: messages 0–41 are summarised
 */
export function compactionSplit(
  context: Pick<AgentContext, 'messages'> & { config: { compaction: ResolvedCompaction | null } },
): number | null {
  const { messages } = context;
  const keep = context.config.compaction?.keepRecentTokens ?? DEFAULT_CONTEXT_WINDOW / 10;
  let kept = 0;
  let split: number | null = null;
  for (let index = messages.length - 1; index >= FEWEST_SUMMARISED; index--) {
    kept += estimateTokens(messages[index]);
    if (messages[index]!.role !== 'assistant') continue;
    // The latest exchange stays whatever its size; after it, only what fits the budget.
    if (split !== null && kept > keep) break;
    split = index;
  }
  return split;
}

/**
 * The next request would pass the threshold, and there is something to summarise.
 *
 * @example
 * compactionDue(core.context); // true once a request would pass 80% of the context window
 */
export function compactionDue(
  context: Pick<AgentContext, 'messages' | 'window' | 'config'>,
): boolean {
  const settings = context.config.compaction;
  if (settings === null) return false;
  if (requestTokens(context) <= settings.threshold * settings.contextWindow) return false;
  return compactionSplit(context) !== null;
}

/**
 * The request that asks the model to summarise what the compaction replaces: the transcript up
 * to the cut, with the instructions after its last message, no tool calls allowed and no
 * extended thinking (the summary is plain text).
 *
 * @example
 * const request = compactionRequest(core.context);
 */
export function compactionRequest(context: AgentContext): LlmRequest {
  const split = compactionSplit(context) ?? context.messages.length;
  const summarised = { messages: context.messages.slice(0, split) };
  const messages = appendedUserText(summarised, summaryPrompt(context));
  const request = buildRequest({ messages, config: context.config });
  const {
    thinking: _thinking,
    tool_choice: _choice,
    output_config: _output,
    ...fields
  }: Record<string, unknown> = { ...context.config.requestFields };
  if (request.tools !== undefined) fields.tool_choice = { type: 'none' };
  if (Object.keys(fields).length > 0) request.fields = fields;
  else delete request.fields;
  return request;
}

/**
 * The transcript once compacted: the summary, as the user's first message, then the messages
 * after the cut as they were.
 *
 * @example
 * compactedTranscript(core.context, 'We are adding OAuth to the API…');
 */
export function compactedTranscript(context: AgentContext, summary: string): Message[] {
  const split = compactionSplit(context) ?? context.messages.length;
  return [
    {
      role: 'user',
      content: [
        {
          type: 'text',
          text: `${SUMMARY_HEADING}\n\n${summary}`,
        },
      ],
    },
    ...context.messages.slice(split),
  ];
}

/** What the first message of a compacted transcript starts with. */
export const SUMMARY_HEADING =
  '[compacted] This conversation goes on from an earlier part that was summarised to save context. The summary:';

function summaryPrompt(context: AgentContext): string {
  const extra = [
    context.config.compaction?.instructions ?? null,
    ...(context.window.compacting?.instructions ?? []),
  ].filter((text): text is string => text !== null && text !== '');
  return [
    'Stop here and write a summary of the conversation so far, to replace it: the work goes on from your summary and the messages that follow it, and nothing else of what came before.',
    'Keep what the work needs: what the user asked for and every constraint they set, the decisions taken and why, the files, functions and commands involved, what is done and what is left, and any error still open. Be specific; quote names, paths and values exactly.',
    'Answer with the summary alone, in plain text. Do not call tools.',
    ...extra.map((text) => `Also: ${text}`),
  ].join('\n\n');
}
