/**
 * `agent-statechart inspect --session NAME`: a stored session in the inspector page, replayed
 * from its log so the page steps back and forth through it, and followed: what the session's
 * process appends later (a `run --session NAME` in another terminal) shows up as it is stored.
 */
import { once } from 'node:events';
import { AgentStatechartError } from '../machine/index.js';
import { inspectStoredSession, startInspectorServer } from '../inspect/index.js';
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
    const inspector = await startInspectorServer({
      port: portOption(values.get('--port')),
      ...(host === undefined ? {} : { host }),
      ...(token === undefined ? {} : { token }),
      title: `agent-statechart inspector · session ${sessionId}`,
    });
    try {
      const view = await inspectStoredSession(inspector.recorder, store, sessionId, {
        config: cliChartConfig(header.metadata),
        follow: true,
      });
      print(`inspector ${inspector.url}`);
      print(
        `session   ${sessionId} from ${path}: ${view.head} log entries, replayed; new ones appear as they are stored`,
      );
      for (const warning of view.warnings) print(`warning   ${warning}`);
      print('Step through it in the page (← → Home End); Ctrl-C stops.');
      await stop;
      view.stop();
    } finally {
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
