#!/usr/bin/env node
/**
 * The `agent-statechart` command.
 *
 * @example
 * // npx agent-statechart demo
 * // npx agent-statechart run --workspace ./my-repo --session fix-tests
 * // npx agent-statechart mcp-serve --workspace ./my-repo
 * // npx agent-statechart sessions list
 * // npx agent-statechart inspect --session fix-tests
 */
import { once } from 'node:events';
import { startInspectorServer } from '../inspect/index.js';
import { runDemo } from './demo.js';
import { runDiagramCommand } from './diagramCommand.js';
import { portOption, runInspectSessionCommand } from './inspectSessionCommand.js';
import { mcpServeCommand } from './mcpServeCommand.js';
import { runCommand } from './runCommand.js';
import { runSessionsCommand } from './sessionsCommand.js';
import { asksForHelp, commandUsage, USAGE } from './usage.js';

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
  const help = command === undefined ? undefined : commandUsage(command);
  if (help !== undefined && asksForHelp(rest)) {
    console.log(help);
    return 0;
  }
  switch (command) {
    case 'run':
      return runCommand(rest);
    case 'mcp-serve':
      return mcpServeCommand(rest);
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
      console.log(USAGE);
      return 0;
    case undefined:
      console.error(USAGE);
      return 1;
    default:
      console.error(`unknown command '${command}'\n\n${USAGE}`);
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
