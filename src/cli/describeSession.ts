/**
 * A stored session in words, for the terminal: a message of the transcript on one line, an entry
 * of the log on one line (what came in, or which side effect was about to start), and what model
 * calls used and cost.
 */
import type {
  AgentEvent,
  ContentBlock,
  EffectStart,
  Message,
  UsageTotals,
} from '../machine/index.js';
import type { StoredEntry } from '../persistence/index.js';

/** Long text is cut to this many characters on a line. */
const MAX_TEXT = 160;

function clip(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
}

/**
 * A message's content on one line: text quoted, tool calls and results named.
 *
 * @example
 * describeContent({ role: 'user', content: 'hi' }); // 'hi'
 */
export function describeContent(message: Message): string {
  if (typeof message.content === 'string') return clip(message.content);
  return message.content.map(describeBlock).join(' · ');
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return clip(JSON.stringify(block.text));
    case 'tool_use':
      return `tool_use ${String(block.name)} ${clip(JSON.stringify(block.input))}`;
    case 'tool_result':
      return `tool_result ${clip(JSON.stringify(block.content))}${block.is_error ? ' (error)' : ''}`;
    case 'image':
    case 'document': {
      // Typed loosely: any block the API sends may carry these types.
      const mediaType = (block.source as { media_type?: unknown } | undefined)?.media_type;
      return typeof mediaType === 'string' ? `${block.type} ${mediaType}` : block.type;
    }
    default:
      return block.type;
  }
}

/**
 * A log entry on one line: the event's type and what it carried, or the side effect that was
 * about to start.
 *
 * @example
 * describeEntry({ seq: 2, at: 0, kind: 'started', data: { effect: 'llm' } }); // 'started  the model call'
 */
export function describeEntry(entry: StoredEntry): string {
  if (entry.kind === 'started') return `started  ${describeStart(entry.data)}`;
  const event = entry.data;
  const detail = describeEvent(event);
  return detail === '' ? event.type : `${event.type}  ${detail}`;
}

function describeStart(start: EffectStart): string {
  switch (start.effect) {
    case 'llm':
      return 'the model call';
    case 'tool':
      return `${start.name} ${start.callId} (${start.mutating ? 'mutating' : 'read-only'})`;
    case 'hook':
      return 'the post-tools hook';
    default:
      return JSON.stringify(start);
  }
}

function describeEvent(event: AgentEvent): string {
  switch (event.type) {
    case 'UserInput':
      return describeContent(event.message);
    case 'LlmCompleted':
      return describeContent(event.response.message);
    case 'LlmError':
      return `${event.error.kind}: ${clip(event.error.message)}`;
    case 'LlmTextDelta':
      return `(streamed before it stopped) ${clip(JSON.stringify(event.content))}`;
    case 'LlmToolCallDelta':
      return `(streamed before it stopped) ${event.toolName} ${event.callId}`;
    case 'ToolCompleted':
      return `${event.callId} ${
        event.outcome.status === 'success'
          ? `success ${clip('output' in event.outcome ? JSON.stringify(event.outcome.output) : event.outcome.content.map(describeBlock).join(' · '))}`
          : `error ${clip(event.outcome.error.message)}`
      }`;
    case 'ToolApproval':
      return `${event.callId} ${event.decision}${event.remember ? ' (remembered)' : ''}`;
    case 'UserAnswer':
      return `${event.callId} ${clip(JSON.stringify(event.answers))}`;
    case 'PostToolsHookCompleted':
      if (event.error !== undefined) return `failed: ${clip(event.error)}`;
      return event.actionTaken ? 'committed' : 'nothing to do';
    case 'PreToolUseDecision':
    case 'PostToolUseResult':
    case 'UserPromptSubmitDecision':
    case 'StopDecision':
      return describeHookAnswer(event);
    case 'PreCompactDecision':
      if (event.error !== undefined) return `failed: ${clip(event.error)}`;
      if (event.decision === 'block') {
        return ['blocked', ...(event.reason === undefined ? [] : [clip(event.reason)])].join(' · ');
      }
      return event.instructions === undefined
        ? 'let through'
        : `let through · also keep: ${clip(event.instructions)}`;
    case 'Compact':
      return event.instructions === undefined ? '' : `keep: ${clip(event.instructions)}`;
    case 'SetPermissionMode':
      return event.mode;
    case 'SetTools':
      return clip(event.tools.map((tool) => tool.name).join(', ') || 'no tools');
    case 'Resume': {
      const parts: string[] = [];
      if (event.startedToolCallIds !== undefined) {
        parts.push(`tool calls that had started: ${event.startedToolCallIds.join(', ') || 'none'}`);
      }
      if (event.retryElapsedMs !== undefined) {
        parts.push(`${event.retryElapsedMs} ms of the backoff already waited`);
      }
      return parts.join('; ');
    }
    default:
      return '';
  }
}

/** What a hook answered, in a few words. */
function describeHookAnswer(
  event: Extract<
    AgentEvent,
    {
      type:
        'PreToolUseDecision' | 'PostToolUseResult' | 'UserPromptSubmitDecision' | 'StopDecision';
    }
  >,
): string {
  const call = 'callId' in event ? `${event.callId} ` : '';
  if (event.error !== undefined) return `${call}failed: ${clip(event.error)}`;
  const parts: string[] = [];
  switch (event.type) {
    case 'PreToolUseDecision':
      parts.push(event.decision ?? 'no decision');
      if (event.input !== undefined) parts.push(`new input ${clip(JSON.stringify(event.input))}`);
      break;
    case 'PostToolUseResult':
      if (event.message !== undefined) parts.push(`error replaced: ${clip(event.message)}`);
      break;
    case 'UserPromptSubmitDecision':
      parts.push(event.decision === 'block' ? 'blocked' : 'let through');
      break;
    case 'StopDecision':
      parts.push(event.decision === 'continue' ? 'go on' : 'end the turn');
      break;
  }
  if ('reason' in event && event.reason !== undefined) parts.push(clip(event.reason));
  if ('context' in event && event.context !== undefined) parts.push(`note: ${clip(event.context)}`);
  return `${call}${parts.join(' · ') || 'nothing'}`;
}

/**
 * Model calls' usage in one line: calls, tokens (cache ones when any) and cost.
 *
 * @example
 * describeUsage(agent.usage.turn); // '2 calls · 1,234 in / 456 out · $0.0105'
 */
export function describeUsage(totals: UsageTotals): string {
  const count = (n: number) => n.toLocaleString('en');
  const parts = [
    `${totals.calls} call${totals.calls === 1 ? '' : 's'}`,
    `${count(totals.input_tokens)} in / ${count(totals.output_tokens)} out`,
  ];
  if (totals.cache_creation_input_tokens > 0 || totals.cache_read_input_tokens > 0) {
    parts.push(
      `cache ${count(totals.cache_creation_input_tokens)} written / ${count(totals.cache_read_input_tokens)} read`,
    );
  }
  parts.push(
    totals.costUsd === null
      ? 'cost unknown (no price for the model)'
      : `$${totals.costUsd.toFixed(4)}`,
  );
  return parts.join(' · ');
}
