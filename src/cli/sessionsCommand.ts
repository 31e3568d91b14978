/**
 * `agent-statechart sessions list | show ID | fork ID NEW_ID | rm ID`: the sessions a workspace
 * keeps (or those of the store named by `--store`), one session's transcript and log in words,
 * forking one, and removing one.
 */
import {
  type AgentConfig,
  type AgentStatechartError,
  errorMessage,
  type Message,
  type UsageTotals,
} from '../machine/index.js';
import {
  forkSession,
  openSession,
  type SessionStore,
  sessionTree,
  subagentLinkOf,
} from '../persistence/index.js';
import { describeResume, previewResume } from './describeResume.js';
import { replaySessionHistory, type SessionHistory } from './sessionHistory.js';
import { describeContent, describeEntry, describeUsage } from './describeSession.js';
import { parseFlags } from './parseFlags.js';
import { cliChartConfig } from './sessionConfig.js';
import {
  noSuchSession,
  openExistingSessionStore,
  sessionStorePath,
} from './workspaceSessionStore.js';

/**
 * Where `sessions` prints.
 *
 * @example
 * const io: SessionsIo = { out: (line) => console.log(line), err: (line) => console.error(line) };
 */
export interface SessionsIo {
  out: (line: string) => void;
  err: (line: string) => void;
}

const SUBCOMMANDS = 'list, show ID, fork ID NEW_ID or rm ID';

/** How many session ids each subcommand takes, and its usage line. */
const SHAPES: Readonly<Record<string, { ids: number; usage: string }>> = {
  list: { ids: 0, usage: 'list' },
  show: { ids: 1, usage: 'show ID' },
  rm: { ids: 1, usage: 'rm ID' },
  fork: { ids: 2, usage: 'fork ID NEW_ID [--at N]' },
};

/**
 * Runs `sessions` with its arguments; resolves with the exit code.
 *
 * @example
 * process.exitCode = await runSessionsCommand(['list', '--workspace', '.'], io);
 */
export async function runSessionsCommand(argv: string[], io: SessionsIo): Promise<number> {
  const parsed = parseFlags(argv, 'sessions', ['--workspace', '--store', '--at']);
  const [subcommand, ...ids] = parsed.positional;
  const where = {
    workspace: parsed.values.get('--workspace') ?? process.cwd(),
    ...(parsed.values.has('--store') ? { store: parsed.values.get('--store')! } : {}),
  };
  const shape = subcommand === undefined ? undefined : SHAPES[subcommand];
  if (shape === undefined) {
    io.err(
      `sessions takes ${SUBCOMMANDS}; got ${subcommand === undefined ? 'nothing' : `'${subcommand}'`}`,
    );
    return 1;
  }
  const at = parsed.values.get('--at');
  if (ids.length !== shape.ids || (at !== undefined && subcommand !== 'fork')) {
    io.err(`usage: agent-statechart sessions ${shape.usage} [--workspace DIR | --store PATH]`);
    return 1;
  }
  if (at !== undefined && !/^\d+$/.test(at)) {
    io.err(`--at takes a number of messages; got '${at}'`);
    return 1;
  }
  const sessionId = ids[0];
  let opened: { store: SessionStore; path: string };
  try {
    opened = openExistingSessionStore(where);
  } catch (error) {
    if (subcommand === 'list' && (error as AgentStatechartError).code === 'SESSION_NOT_FOUND') {
      io.out(`no sessions (there is no store at ${sessionStorePath(where)})`);
      return 0;
    }
    throw error;
  }
  const { store, path } = opened;
  try {
    if (subcommand === 'list') return await list(store, path, io);
    if (subcommand === 'fork') {
      return await fork(
        store,
        path,
        sessionId!,
        ids[1]!,
        at === undefined ? undefined : Number(at),
        io,
      );
    }
    if (subcommand === 'rm') {
      if (await store.delete(sessionId!)) {
        io.out(`removed session ${sessionId} from ${path}`);
        return 0;
      }
      io.err(noSuchSession(sessionId!, path));
      return 1;
    }
    return await show(store, path, sessionId!, io);
  } finally {
    await store.close();
  }
}

async function fork(
  store: SessionStore,
  path: string,
  sessionId: string,
  newId: string,
  at: number | undefined,
  io: SessionsIo,
): Promise<number> {
  const stored = await store.load(sessionId);
  if (stored === undefined) {
    io.err(noSuchSession(sessionId, path));
    return 1;
  }
  const config = cliChartConfig(stored.header.metadata);
  try {
    const forked = await forkSession(store, sessionId, newId, {
      config,
      ...(at === undefined ? {} : { at }),
      // The fork runs as a session of the command line, in the original's workspace and mode.
      ...(stored.header.metadata ? { metadata: stored.header.metadata } : {}),
    });
    io.out(
      `forked session ${sessionId} into ${newId} at ${forked.messageCount} message${forked.messageCount === 1 ? '' : 's'} (in ${path}); resume it with run --session ${newId}`,
    );
    return 0;
  } catch (error) {
    const code = (error as AgentStatechartError).code;
    if (code !== 'INVALID_OPTION' && code !== 'SESSION_EXISTS') throw error;
    io.err(errorMessage(error));
    return 1;
  }
}

/**
 * What each turn's model calls used and cost, as the chart reckoned it: each turn's sum the last
 * `UsageReported` of the turn said.
 */
function showTurnUsage(turns: readonly UsageTotals[], io: SessionsIo): void {
  if (turns.length === 0) return;
  io.out('');
  io.out(`usage by turn (${turns.length} turn${turns.length === 1 ? '' : 's'} with model calls)`);
  turns.forEach((turn, index) => {
    io.out(`  ${String(index + 1).padStart(3)}  ${describeUsage(turn)}`);
  });
}

async function list(store: SessionStore, path: string, io: SessionsIo): Promise<number> {
  const sessions = await store.list();
  if (sessions.length === 0) {
    io.out(`no sessions in ${path}`);
    return 0;
  }
  io.out(`sessions in ${path} (state and messages as of each one's last checkpoint)`);
  // A subagent's session is listed under its parent's, indented, with the agent that ran it.
  const rows = [
    ['ID', 'STATE', 'MESSAGES', 'ENTRIES', 'UPDATED'],
    ...sessionTree(sessions).map(({ session, depth, link }) => [
      `${'  '.repeat(depth)}${session.sessionId}${depth > 0 && link ? ` (${link.agent})` : ''}`,
      session.state ?? '(new)',
      String(session.messageCount),
      String(session.head),
      new Date(session.updatedAt).toISOString(),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  for (const row of rows) {
    io.out(
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    );
  }
  return 0;
}

async function show(
  store: SessionStore,
  path: string,
  sessionId: string,
  io: SessionsIo,
): Promise<number> {
  const stored = await store.load(sessionId);
  if (stored === undefined) {
    io.err(noSuchSession(sessionId, path));
    return 1;
  }
  const { header } = stored;
  io.out(`session ${sessionId}`);
  io.out(`  store     ${path}`);
  io.out(`  created   ${new Date(header.createdAt).toISOString()}`);
  io.out(`  chart     ${header.chartVersion}`);
  if (header.metadata !== undefined) io.out(`  metadata  ${JSON.stringify(header.metadata)}`);
  await showAgentTree(store, sessionId, header.metadata, io);

  const config = cliChartConfig(header.metadata);
  const entries = await store.entries(sessionId);
  // The log holds the whole history, what compactions took out of the transcript included.
  const history = replaySessionHistory(entries, config);
  try {
    const opened = await openSession(store, sessionId, { config, mustExist: true });
    showChart(opened, config, io);
    showTranscript(opened.core.context.messages, history, io);
  } catch (error) {
    const code = (error as AgentStatechartError).code;
    if (code !== 'SESSION_VERSION_MISMATCH' && code !== 'SESSION_CORRUPT') throw error;
    // The log is still worth reading when the chart cannot rebuild the session from it.
    io.out(`  (the transcript cannot be rebuilt here: ${errorMessage(error)})`);
  }

  showTurnUsage(history.turns, io);
  io.out('');
  io.out(`log (${entries.length} entr${entries.length === 1 ? 'y' : 'ies'})`);
  const width = String(entries.at(-1)?.seq ?? 0).length;
  for (const entry of entries) {
    const offset = ((entry.at - header.createdAt) / 1000).toFixed(3);
    const note = history.notes.get(entry.seq);
    io.out(
      `  ${String(entry.seq).padStart(width)}  +${offset} s  ${describeEntry(entry)}${note === undefined ? '' : `  (${note})`}`,
    );
  }
  return 0;
}

/**
 * Where the session stands in the tree of agents: the parent whose task it ran, for a subagent's
 * session, and the sessions of its own subagents.
 */
async function showAgentTree(
  store: SessionStore,
  sessionId: string,
  metadata: Record<string, unknown> | undefined,
  io: SessionsIo,
): Promise<void> {
  const link = subagentLinkOf(metadata);
  if (link !== undefined) {
    io.out(`  parent    ${link.parentSessionId} (task call ${link.callId}, agent ${link.agent})`);
  }
  const children = (await store.list()).filter(
    (session) => subagentLinkOf(session.metadata)?.parentSessionId === sessionId,
  );
  for (const [index, child] of children.entries()) {
    const { agent, callId } = subagentLinkOf(child.metadata)!;
    io.out(
      `  ${index === 0 ? 'subagents' : '         '} ${child.sessionId} (agent ${agent}, task call ${callId}, ${child.state ?? 'new'}, ${child.messageCount} messages)`,
    );
  }
}

/** The session as a resume would find it: its state, what is in flight, and its usage. */
function showChart(
  opened: Awaited<ReturnType<typeof openSession>>,
  config: AgentConfig,
  io: SessionsIo,
): void {
  const { core, resume } = opened;
  io.out(`  state     ${core.state}`);
  if (resume !== undefined) {
    const items = describeResume(previewResume(core.snapshot(), config, resume));
    io.out('  in flight when its process stopped; resuming it would:');
    if (items.length === 0) io.out('    go on from where it stopped');
    for (const item of items) io.out(`    ${item.kind.padEnd(12)} ${item.text}`);
  }
  io.out(`  usage     ${describeUsage(core.context.usage)}`);
}

/**
 * The transcript: the whole history with each compaction where it happened, when the log holds
 * one (the live transcript keeps only the latest summary and what follows it); otherwise the
 * transcript as the session holds it (a session that started from given messages has them only
 * there).
 */
function showTranscript(live: readonly Message[], history: SessionHistory, io: SessionsIo): void {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const line = (number: number, message: Message) =>
    `  ${String(number).padStart(3)}  ${message.role.padEnd(9)}  ${describeContent(message)}`;
  io.out('');
  const compactions = history.items.filter((item) => item.kind === 'compaction').length;
  const replayed = JSON.stringify(history.transcript) === JSON.stringify(live);
  if (compactions === 0 || !replayed) {
    io.out(`transcript (${plural(live.length, 'message')})`);
    if (compactions > 0) {
      io.out(
        `  (compacted ${plural(compactions, 'time')}; the log does not rebuild the history before it here: it started from messages given when it was created, or ran with another configuration)`,
      );
    }
    live.forEach((message, index) => io.out(line(index + 1, message)));
    return;
  }
  io.out(
    `transcript (${plural(history.items.length - compactions, 'message')} in all, compacted ${plural(compactions, 'time')}: the model sees the latest summary and the ${plural(live.length - 1, 'message')} after it)`,
  );
  let number = 0;
  for (const item of history.items) {
    if (item.kind === 'message') {
      io.out(line(++number, item.message));
      continue;
    }
    io.out(
      `       ── compacted (${item.trigger}, entry ${item.seq}): ${plural(item.summarised, 'message')} summarised, ${item.kept} kept; the summary:`,
    );
    for (const text of item.summary.split('\n')) io.out(`          ${text}`.trimEnd());
  }
}
