/**
 * What the persistence tests check of a session log: that replaying it from its first entry
 * through pure mode reaches the chart a live agent reached, and that it holds a model call's
 * stream only where something else came before the call's own end.
 */
import {
  type AgentConfig,
  type AgentContext,
  AgentCore,
  type AgentDiagnostic,
  type AgentStateValue,
  EVENT_TRAITS,
  type Message,
} from '../../src/index.js';
import { checkpointContext } from '../../src/persistence/sessionRecords.js';
import type { CheckpointContext, StoredEntry } from '../../src/persistence/sessionStore.js';

/** The chart as a restart gets it back: where it is, its transcript, and its stored context. */
export interface DurableView {
  stateValue: AgentStateValue;
  messages: Message[];
  context: CheckpointContext;
}

/**
 * The chart as a restart gets it back: the streamed text of a call in flight and tool progress
 * are not kept (the call is made again), everything else is.
 */
export function durableView(chart: { stateValue: AgentStateValue; context: AgentContext }) {
  const view: DurableView = {
    stateValue: chart.stateValue,
    messages: chart.context.messages,
    context: checkpointContext(chart.context),
  };
  // As stored: through JSON, so a value the store would drop (an undefined field) compares alike.
  return JSON.parse(JSON.stringify(view)) as DurableView;
}

/**
 * Every event of `entries`, from the first, fed to a new chart in pure mode (on `messages`, the
 * history the session was opened with): the chart it reaches, and what it refused (a log holds
 * only events the chart took, so nothing should be).
 */
export function replayLog(
  entries: readonly StoredEntry[],
  config: AgentConfig,
  messages?: Message[],
): { core: AgentCore; refused: AgentDiagnostic[] } {
  const refused: AgentDiagnostic[] = [];
  const core = new AgentCore(config, {
    ...(messages === undefined ? {} : { messages }),
    onDiagnostic: (diagnostic) => refused.push(diagnostic),
  });
  for (const entry of entries) if (entry.kind === 'event') core.handleEvent(entry.data);
  return { core, refused };
}

/**
 * Where the log holds a model call's stream although nothing came between it and the call's own
 * next event (its response or failure), or holds it unmerged: a stored stream is at most one
 * `LlmStarted`, one `LlmTextDelta` and one `LlmToolCallDelta` per call, and the next event after
 * it comes from elsewhere than the model (an interrupt, input queued meanwhile, …). Empty when
 * the log keeps streams as it should.
 */
export function misplacedStreams(entries: readonly StoredEntry[]): string[] {
  const problems: string[] = [];
  let run: Array<{ seq: number; type: string; callId?: string }> = [];
  for (const entry of entries) {
    if (entry.kind !== 'event') continue;
    const event = entry.data;
    const traits = EVENT_TRAITS[event.type];
    if (traits.streamed) {
      run.push({
        seq: entry.seq,
        type: event.type,
        ...(event.type === 'LlmToolCallDelta' ? { callId: event.callId } : {}),
      });
      continue;
    }
    if (run.length === 0) continue;
    const where = `entries ${run[0]!.seq}–${run.at(-1)!.seq}`;
    if (traits.origin === 'llm') {
      problems.push(`${where}: a stream kept before the call's own ${event.type} (${entry.seq})`);
    }
    const keys = run.map((piece) => `${piece.type}${piece.callId ?? ''}`);
    if (new Set(keys).size !== keys.length) problems.push(`${where}: a stream kept unmerged`);
    run = [];
  }
  if (run.length > 0) problems.push(`entries ${run[0]!.seq}–: a stream kept at the end of the log`);
  return problems;
}

/** How many entries hold an event of `type`. */
export function countEvents(entries: readonly StoredEntry[], type: string): number {
  return entries.filter((entry) => entry.kind === 'event' && entry.data.type === type).length;
}

/** The event each stream the log kept came before, in order (`UserInput`, `Interrupt`, …). */
export function streamsKeptBefore(entries: readonly StoredEntry[]): string[] {
  const before: string[] = [];
  let inStream = false;
  for (const entry of entries) {
    if (entry.kind !== 'event') continue;
    const streamed = EVENT_TRAITS[entry.data.type].streamed === true;
    if (inStream && !streamed) before.push(entry.data.type);
    inStream = streamed;
  }
  return before;
}
