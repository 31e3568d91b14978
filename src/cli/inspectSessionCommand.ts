/**
 * `agent-statechart inspect --session NAME`: a stored session in the inspector page, replayed
 * from its log so the page steps back and forth through it, and followed: what the session's
 * process appends later (a `run --session NAME` in another terminal) shows up as it is stored.
 * The page shows where the session sits in the tree of agents, and opens the sessions around it
 * (its parent's, its subagents') from the same store.
 */
import { once } from 'node:events';
import { AgentStatechartError } from '../machine/index.js';
import {
  InspectionRecorder,
  startInspectorServer,
  storedSessionCatalog,
} from '../inspect/index.js';
import { parseFlags } from './parseFlags.js';
import { cliChartConfig } from './sessionConfig.js';
import { noSuchSession, openExistingSessionStore } from './workspaceSessionStore.js';

/**
 * Runs `inspect --session NAME` until Ctrl-C (or, with `stop`, until it resolves); resolves with
 * the exit code.
 *
 * @example
 * process.exitCode = await runInspectSessionCommand(['--session', 'demo'], console.log);
 */
export async function runInspectSessionCommand(
  argv: string[],
  print: (line: string) => void,
  stop: Promise<unknown> = once(process, 'SIGINT'),
): Promise<number> {
  const { values } = parseFlags(argv, 'inspect', [
    '--session',
    '--workspace',
    '--store',
    '--port',
    '--host',
    '--token',
  ]);
  const sessionId = values.get('--session');
  if (sessionId === undefined) throw new Error('inspect --session needs a session id');
  const { store, path } = openExistingSessionStore({
    workspace: values.get('--workspace') ?? process.cwd(),
    ...(values.has('--store') ? { store: values.get('--store')! } : {}),
  });
  try {
    const header = (await store.load(sessionId))?.header;
    if (header === undefined) {
      throw new AgentStatechartError('SESSION_NOT_FOUND', noSuchSession(sessionId, path));
    }
    const host = values.get('--host');
    const token = values.get('--token');
    // Any session of the store opens in the page (its parent's, its subagents'), each replayed
    // with the configuration its own header names.
    const sessions = storedSessionCatalog(new InspectionRecorder(), store, {
      config: (opened) => cliChartConfig(opened.metadata),
      follow: true,
    });
    const inspector = await startInspectorServer({
      port: portOption(values.get('--port')),
      ...(host === undefined ? {} : { host }),
      ...(token === undefined ? {} : { token }),
      sessions,
    });
    try {
      const view = await sessions.open(sessionId);
      if (view === undefined) {
        throw new AgentStatechartError('SESSION_NOT_FOUND', noSuchSession(sessionId, path));
      }
      print(`inspector ${inspector.url}`);
      print(
        `session   ${sessionId} from ${path}: ${view.head} log entries, replayed; new ones appear as they are stored`,
      );
      const place = await sessions.place(sessionId);
      if (place?.parent) {
        const { parentSessionId, agent, callId } = place.parent;
        print(`parent    ${parentSessionId} (agent ${agent}, task call ${callId})`);
      }
      if (place !== undefined && place.subagents.length > 0) {
        const count = place.subagents.length;
        print(`subagents ${count} session${count === 1 ? '' : 's'}, linked from the page`);
      }
      for (const warning of view.warnings) print(`warning   ${warning}`);
      print('Step through it in the page (← → Home End); Ctrl-C stops.');
      await stop;
    } finally {
      sessions.close();
      await inspector.close();
    }
  } finally {
    await store.close();
  }
  return 0;
}

/**
 * `--port`'s value as a port number (0, the default, lets the system choose).
 *
 * @example
 * portOption('4700'); // 4700
 */
export function portOption(raw: string | undefined): number {
  const port = Number(raw ?? '0');
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new Error(`--port must be a whole number from 0 to 65535; got '${raw}'`);
  }
  return port;
}
