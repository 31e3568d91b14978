#!/usr/bin/env node
/**
 * The `agent-statechart` command.
 *
 * @example
 * // npx agent-statechart demo
 * // npx agent-statechart run --workspace ./my-repo --session fix-tests
 * // npx agent-statechart sessions list
 * // npx agent-statechart inspect --session fix-tests
 */
import { once } from 'node:events';
import { startInspectorServer } from '../inspect/startInspectorServer.js';
import { runDemo } from './demo.js';
import { runDiagramCommand } from './diagramCommand.js';
import { portOption, runInspectSessionCommand } from './inspectSessionCommand.js';
import { runCommand } from './runCommand.js';
import { runSessionsCommand } from './sessionsCommand.js';

const usage = `usage: agent-statechart <command> [options]

commands:
  run [--workspace DIR] [--mode MODE] [--model NAME] [--session NAME [--store PATH]]
                            an interactive agent in DIR: Claude when ANTHROPIC_API_KEY is set,
                            otherwise an offline scripted model; MODE is plan, default,
                            acceptEdits or bypassPermissions (default: default). With --session
                            every step is stored (in DIR/.agent-statechart/sessions.db, or PATH)
                            and the session resumes where it stopped, even after a crash
  sessions list | show ID | rm ID [--workspace DIR | --store PATH]
                            the stored sessions, one session's transcript and log, removing one
  demo [--keep] [--no-inspector] [--port N]
                            a scripted session through all seven states, with a retried 529
                            and a git auto-commit, offline (no API key needed): its process is
                            killed with SIGKILL mid-tools and a new one resumes it from the
                            store; shown in the local inspector page
  inspect [--port N] [--host HOST --token TOKEN]
                            the demo session in the inspector page, served until Ctrl-C
  inspect --session NAME [--workspace DIR | --store PATH] [--port N]
                            a stored session in the inspector page, to step through, followed
                            as it grows, until Ctrl-C
  diagram [--format mermaid|dot|svg|json] [--out FILE] [--machine MODULE[:EXPORT]]
                            draw the agent's chart (or any XState v5 machine)
  help                      this text`;

/** The value after `flag` in `argv`, if given. */
function option(argv: string[], flag: string): string | undefined {
  const index = argv.indexOf(flag);
  return index === -1 ? undefined : argv[index + 1];
}

/**
 * The demo, watched in the inspector page. With `keepServing` (the `inspect` command) the page
 * stays up until Ctrl-C; otherwise until Enter when a terminal is attached, else at once.
 */
async function demoWithInspector(argv: string[], keepServing: boolean): Promise<number> {
  const host = option(argv, '--host');
  const token = option(argv, '--token');
  const inspector = await startInspectorServer({
    port: portOption(option(argv, '--port')),
    ...(host === undefined ? {} : { host }),
    ...(token === undefined ? {} : { token }),
  });
  console.log(`inspector ${inspector.url}`);
  try {
    await runDemo({
      print: (line) => console.log(line),
      keepWorkspace: argv.includes('--keep'),
      inspector: inspector.recorder,
      eventDelayMs: 40,
    });
    if (keepServing) {
      console.log(`\nThe inspector stays at ${inspector.url} — press Ctrl-C to stop.`);
      await once(process, 'SIGINT');
    } else if (process.stdin.isTTY) {
      console.log(`\nThe session is recorded at ${inspector.url} — press Enter to stop.`);
      process.stdin.resume();
      await once(process.stdin, 'data');
      process.stdin.pause();
    }
  } finally {
    await inspector.close();
  }
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return runCommand(rest);
    case 'demo':
      if (rest.includes('--no-inspector')) {
        await runDemo({
          print: (line) => console.log(line),
          keepWorkspace: rest.includes('--keep'),
        });
        return 0;
      }
      return demoWithInspector(rest, false);
    case 'inspect':
      if (rest.includes('--session')) {
        return runInspectSessionCommand(rest, (line) => console.log(line));
      }
      return demoWithInspector(rest, true);
    case 'sessions':
      return runSessionsCommand(rest, {
        out: (line) => console.log(line),
        err: (line) => console.error(line),
      });
    case 'diagram':
      return runDiagramCommand(rest, {
        stdout: (text) => process.stdout.write(text),
        stderr: (text) => process.stderr.write(text),
      });
    case 'help':
    case '--help':
    case '-h':
      console.log(usage);
      return 0;
    case undefined:
      console.error(usage);
      return 1;
    default:
      console.error(`unknown command '${command}'\n\n${usage}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
