#!/usr/bin/env node
/**
 * The `agent-statechart` command.
 *
 * @example
 * // npx agent-statechart demo
 * // npx agent-statechart run --workspace ./my-repo
 */
import { runDemo } from './demo.js';
import { runDiagramCommand } from './diagramCommand.js';
import { runCommand } from './runCommand.js';

const usage = `usage: agent-statechart <command> [options]

commands:
  run [--workspace DIR] [--mode MODE] [--model NAME]
                            an interactive agent in DIR: Claude when ANTHROPIC_API_KEY is set,
                            otherwise an offline scripted model; MODE is plan, default,
                            acceptEdits or bypassPermissions (default: default)
  demo [--keep]             a scripted session through all seven states, with a retried 529
                            and a git auto-commit, offline (no API key needed)
  diagram [--format mermaid|dot|svg|json] [--out FILE] [--machine MODULE[:EXPORT]]
                            draw the agent's chart (or any XState v5 machine)
  help                      this text`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'demo':
      await runDemo({ print: (line) => console.log(line), keepWorkspace: rest.includes('--keep') });
      return 0;
    case 'run':
      return runCommand(rest);
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
