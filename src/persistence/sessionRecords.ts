/**
 * What a durable session writes, and how it is read back: which log entries an event makes, the
 * checkpoint of a context, the transcript records that say where each message comes from, and the
 * transcript rebuilt from them. Pure functions over plain data, shared by the pure-mode session
 * and the actor-mode recorder.
 */
import { AgentStatechartError } from '../machine/agentStatechartError.js';
import type { AgentContext, StreamingToolCall } from '../machine/context.js';
import { allToolsDone } from '../machine/guards.js';
import { toolResultBlock } from '../machine/transcript.js';
import type {
  AgentEvent,
  AgentStateName,
  ContentBlock,
  Message,
  ResumeEvent,
  ToolOutcome,
  ToolResultBlock,
} from '../machine/types.js';
import type { EffectStart } from '../machine/actorInputs.js';
import type { StoredContext } from '../machine/agentCore.js';
import type { Checkpoint, StoredEntry, TranscriptRecord } from './sessionStore.js';

/** An entry before the log numbers it. */
export type NewEntry = Pick<StoredEntry, 'kind' | 'data'>;

/**
 * Events the chart takes that the log does not keep: streamed deltas (the response, or the text an
 * interrupt keeps, carries them) and tool progress (shown, never needed again).
 *
 * @example
 * isEphemeral({ type: 'LlmTextDelta', content: 'Hel' }); // true
 */
export function isEphemeral(event: AgentEvent): boolean {
  return (
    event.type === 'LlmTextDelta' ||
    event.type === 'LlmToolCallDelta' ||
    event.type === 'ToolProgress'
  );
}

/**
 * The entries one event makes, taken in `state` with `context`: none for an ephemeral event, the
 * event itself otherwise — preceded, when it ends a model call early, by the text and tool-call
 * fragments streamed so far, merged, which the chart keeps and a replay must see.
 *
 * @example
 * entriesForEvent({ type: 'Interrupt' }, 'CallingLlm', context);
 * // [{ kind: 'event', data: { type: 'LlmTextDelta', content: 'Roses are red' } }, { kind: 'event', data: { type: 'Interrupt' } }]
 */
export function entriesForEvent(
  event: AgentEvent,
  state: AgentStateName,
  context: Pick<AgentContext, 'streamingText' | 'streamingToolCalls'>,
): NewEntry[] {
  if (isEphemeral(event)) return [];
  const entries: NewEntry[] = [];
  const endsCallEarly = event.type === 'Interrupt' || event.type === 'ShutdownRequested';
  if (state === 'CallingLlm' && endsCallEarly) {
    if (context.streamingText.length > 0) {
      entries.push({
        kind: 'event',
        data: { type: 'LlmTextDelta', content: context.streamingText },
      });
    }
    for (const call of context.streamingToolCalls)
      entries.push({ kind: 'event', data: fragmentOf(call) });
  }
  entries.push({ kind: 'event', data: event });
  return entries;
}

function fragmentOf(call: StreamingToolCall): AgentEvent {
  return {
    type: 'LlmToolCallDelta',
    callId: call.id,
    toolName: call.name,
    argumentsFragment: call.argumentsJson,
  };
}

/**
 * Whether to write a checkpoint now: at rest between turns (nothing in flight, so a restart has
 * nothing to redo), or when `tailLength` entries have piled up since the last one while the chart
 * waits for a model (a long run of tool rounds).
 *
 * @example
 * shouldCheckpoint('WaitingForUserInput', context, 3); // true when no tool call is open
 */
export function shouldCheckpoint(
  state: AgentStateName,
  context: Pick<AgentContext, 'toolRuns'>,
  tailLength: number,
): boolean {
  if (state === 'WaitingForUserInput') return allToolsDone(context);
  return state === 'CallingLlm' && tailLength >= 64;
}

/**
 * The context a checkpoint stores: everything but the configuration and the transcript (the
 * transcript records hold it), without what a restore drops anyway (streamed text, tool progress).
 *
 * @example
 * const stored = checkpointContext(core.context);
 */
export function checkpointContext(context: AgentContext): Omit<StoredContext, 'messages'> {
  const { config: _config, messages: _messages, ...rest } = context;
  return {
    ...rest,
    streamingText: '',
    streamingToolCalls: [],
    toolRuns: rest.toolRuns.map(({ progress: _progress, ...run }) => run),
  };
}

/**
 * The checkpoint of `context` in `state`, as of entry `seq`.
 *
 * @example
 * const checkpoint = checkpointOf(9, core.state, core.context);
 */
export function checkpointOf(
  seq: number,
  state: AgentStateName,
  context: AgentContext,
): Checkpoint {
  return { seq, state, messageCount: context.messages.length, context: checkpointContext(context) };
}

/** How a transcript record builds its message. */
type RecordBody =
  | { from: 'message'; ref: number }
  | { from: 'response'; ref: number }
  | { from: 'toolResults'; parts: Array<{ ref: number } | { block: ContentBlock }> }
  | { message: Message };

/**
 * The transcript records of `messages` from index `from` on, pointing into `entries` (the log
 * since the last checkpoint, with the very objects the chart was given) wherever a message came
 * from an entry, and holding the message itself otherwise.
 *
 * @example
 * const records = transcriptRecords(core.context.messages, 4, tail);
 */
export function transcriptRecords(
  messages: readonly Message[],
  from: number,
  entries: readonly StoredEntry[],
): TranscriptRecord[] {
  // By JSON text, not identity: the chart keeps its own copy of every event it is given (and
  // may change a response, renaming a repeated tool_use id), and a record may point at an entry
  // only when the entry's message reads back as exactly the transcript's.
  const sources = new Map<string, RecordBody>();
  const outcomes = new Map<string, Array<{ seq: number; outcome: ToolOutcome }>>();
  for (const entry of entries) {
    if (entry.kind !== 'event') continue;
    const event = entry.data as AgentEvent;
    if (event.type === 'UserInput') {
      sources.set(JSON.stringify(event.message), { from: 'message', ref: entry.seq });
    }
    if (event.type === 'LlmCompleted') {
      sources.set(JSON.stringify(event.response.message), { from: 'response', ref: entry.seq });
    }
    if (event.type === 'ToolCompleted') {
      const list = outcomes.get(event.callId) ?? [];
      list.push({ seq: entry.seq, outcome: event.outcome });
      outcomes.set(event.callId, list);
    }
  }
  const records: TranscriptRecord[] = [];
  for (let index = from; index < messages.length; index++) {
    const message = messages[index]!;
    const body = sources.get(JSON.stringify(message)) ??
      toolResultsBody(message, outcomes) ?? { message };
    records.push({ index, refs: refsOf(body), body });
  }
  return records;
}

/** A tool results message as references to the outcomes it was built from, where it was. */
function toolResultsBody(
  message: Message,
  outcomes: ReadonlyMap<string, Array<{ seq: number; outcome: ToolOutcome }>>,
): RecordBody | undefined {
  if (message.role !== 'user' || typeof message.content === 'string') return undefined;
  if (!message.content.every((block) => block.type === 'tool_result')) return undefined;
  const parts = (message.content as ToolResultBlock[]).map((block) => {
    const candidates = outcomes.get(block.tool_use_id) ?? [];
    const match = candidates.find(({ outcome }) =>
      sameBlock(toolResultBlock(block.tool_use_id, outcome), block),
    );
    return match ? { ref: match.seq } : { block };
  });
  return parts.some((part) => 'ref' in part) ? { from: 'toolResults', parts } : undefined;
}

function sameBlock(a: ToolResultBlock, b: ToolResultBlock): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function refsOf(body: RecordBody): number[] {
  if ('ref' in body) return [body.ref];
  if ('parts' in body) return body.parts.flatMap((part) => ('ref' in part ? [part.ref] : []));
  return [];
}

/**
 * The transcript a session's records describe, rebuilt from the entries they point at. Throws
 * `SESSION_CORRUPT` when a record or the entry it points at is not what it should be.
 *
 * @example
 * const messages = materializeTranscript(session.transcript, session.entries, 'session a');
 */
export function materializeTranscript(
  records: readonly TranscriptRecord[],
  entries: readonly StoredEntry[],
  what: string,
): Message[] {
  const bySeq = new Map<number, StoredEntry>();
  for (const entry of entries) bySeq.set(entry.seq, entry);
  const broken = (index: number, problem: string): never => {
    throw new AgentStatechartError(
      'SESSION_CORRUPT',
      `${what}, transcript record ${index}: ${problem}`,
    );
  };
  const eventAt = (index: number, ref: number, type: AgentEvent['type']): AgentEvent => {
    const data = bySeq.get(ref)?.data as AgentEvent | undefined;
    if (data?.type !== type) broken(index, `entry ${ref} is not the ${type} it should be`);
    return data!;
  };
  return records.map((record, index) => {
    if (record.index !== index) broken(index, 'records are out of order');
    const body = record.body as Partial<RecordBody> & Record<string, unknown>;
    if ('message' in body && isMessage(body.message)) return body.message;
    if (body.from === 'message') {
      return (eventAt(index, Number(body.ref), 'UserInput') as { message: Message }).message;
    }
    if (body.from === 'response') {
      const event = eventAt(index, Number(body.ref), 'LlmCompleted') as {
        response: { message: Message };
      };
      return event.response.message;
    }
    if (body.from === 'toolResults' && Array.isArray(body.parts)) {
      const content = (body.parts as Array<{ ref?: number; block?: ContentBlock }>).map((part) => {
        if (part.block !== undefined) return part.block;
        const event = eventAt(index, Number(part.ref), 'ToolCompleted') as {
          callId: string;
          outcome: ToolOutcome;
        };
        return toolResultBlock(event.callId, event.outcome);
      });
      return { role: 'user', content };
    }
    return broken(index, 'its body is not one this version writes');
  });
}

function isMessage(value: unknown): value is Message {
  const message = value as Message | null;
  return (
    typeof message === 'object' &&
    message !== null &&
    (message.role === 'user' || message.role === 'assistant')
  );
}

/**
 * The `Resume` a restored session needs, read off the log since its checkpoint: which tool calls
 * had started, and what was left of a retry backoff at `now`. `undefined` when nothing was in
 * flight (the session was at rest).
 *
 * @example
 * const resume = resumeEventFor(core.state, core.context, tail, Date.now());
 */
export function resumeEventFor(
  state: AgentStateName,
  context: Pick<AgentContext, 'toolRuns' | 'retryDelayMs' | 'queue'>,
  tail: readonly StoredEntry[],
  now: number,
): ResumeEvent | undefined {
  if (state === 'ShuttingDown') return undefined;
  const open = context.toolRuns.filter((run) => run.status !== 'done');
  if (state === 'WaitingForUserInput' && open.length === 0) return undefined;
  const resume: ResumeEvent = { type: 'Resume' };
  if (state === 'ExecutingTools') {
    const ids = new Set(open.map((run) => run.call.id));
    resume.startedToolCallIds = tail
      .filter((entry) => entry.kind === 'started')
      .map((entry) => entry.data as EffectStart)
      .flatMap((start) => (start.effect === 'tool' && ids.has(start.callId) ? [start.callId] : []));
  }
  if (state === 'Error') {
    const failed = [...tail]
      .reverse()
      .find((entry) => entry.kind === 'event' && (entry.data as AgentEvent).type === 'LlmError');
    if (failed !== undefined) {
      resume.retryDelayMs = Math.max(0, failed.at + context.retryDelayMs - now);
    }
  }
  return resume;
}
