/**
 * What a durable session writes besides the events, and how it is read back: the checkpoint of a
 * context, the transcript records that say where each message comes from, the transcript rebuilt
 * from them, and the facts a restored session's `Resume` carries. Pure functions over plain data.
 */
import {
  type AgentContext,
  type AgentEvent,
  AgentStatechartError,
  type AgentStateName,
  allToolsDone,
  type ContentBlock,
  type EffectStart,
  type Message,
  type ResumeEvent,
  type ToolOutcome,
  toolResultBlock,
  type ToolResultBlock,
} from '../machine/index.js';
import type {
  Checkpoint,
  CheckpointContext,
  StoredEntry,
  TranscriptRecord,
  TranscriptRecordBody,
} from './sessionStore.js';

/** An entry before the log numbers it. */
export type NewEntry = { kind: 'event'; data: AgentEvent } | { kind: 'started'; data: EffectStart };

/**
 * Whether to write a checkpoint now: at rest between turns (nothing in flight, so a restart has
 * nothing to redo); while the chart waits for a model, when `tailLength` entries have piled up
 * since the last one (a long run of tool rounds), or as soon as a compaction has replaced the
 * transcript's older part since then (`compacted`, as `SessionLog.compactedSinceCheckpoint` says),
 * so a restart reads only the active transcript.
 *
 * @example
 * shouldCheckpoint('WaitingForUserInput', context, 3, false); // true when no tool call is open
 */
export function shouldCheckpoint(
  state: AgentStateName,
  context: Pick<AgentContext, 'toolRuns'>,
  tailLength: number,
  compacted: boolean,
): boolean {
  if (state === 'WaitingForUserInput') return allToolsDone(context);
  return state === 'CallingLlm' && (tailLength >= 64 || compacted);
}

/**
 * The context a checkpoint stores: everything but the configuration and the transcript (the
 * transcript records hold it), without what a restore drops anyway (streamed text, tool progress).
 *
 * @example
 * const stored = checkpointContext(core.context);
 */
export function checkpointContext(context: AgentContext): CheckpointContext {
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
  const sources = new Map<string, TranscriptRecordBody>();
  const outcomes = new Map<string, Array<{ seq: number; outcome: ToolOutcome }>>();
  for (const entry of entries) {
    if (entry.kind !== 'event') continue;
    const event = entry.data;
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
): TranscriptRecordBody | undefined {
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

function refsOf(body: TranscriptRecordBody): number[] {
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
    const body = record.body as Partial<TranscriptRecordBody> & Record<string, unknown>;
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
 * What a restored session's `Resume` says, read off the log since its checkpoint: the facts only
 * the log knows — which tool calls had started, and how much of the latest retry backoff had been
 * waited at `now` that no earlier `Resume` already counted. The chart decides what they mean
 * where it stands.
 *
 * @example
 * const resume = resumeFacts(tail, Date.now());
 * if (core.accepts(resume)) perform(core.handleEvent(resume));
 */
export function resumeFacts(tail: readonly StoredEntry[], now: number): ResumeEvent {
  const resume: ResumeEvent = { type: 'Resume', startedToolCallIds: [] };
  let backoff: { started: number; counted: number } | undefined;
  for (const entry of tail) {
    if (entry.kind === 'started') {
      if (entry.data.effect === 'tool') resume.startedToolCallIds!.push(entry.data.callId);
      if (entry.data.effect === 'retry') backoff = { started: entry.at, counted: 0 };
    } else if (entry.data.type === 'Resume' && backoff !== undefined) {
      // A restart took this much off the backoff already; its own start may not have been
      // recorded before the process stopped again.
      backoff.counted += entry.data.retryElapsedMs ?? 0;
    }
  }
  if (backoff !== undefined) {
    resume.retryElapsedMs = Math.max(0, now - backoff.started - backoff.counted);
  }
  return resume;
}
