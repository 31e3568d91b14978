#!/usr/bin/env node
/**
 * The `agent-statechart` command.
 *
 * @example
 * // npx agent-statechart demo
 */
import { runDemo } from './demo.js';

const usage = `usage: agent-statechart <command>

commands:
  demo    run a scripted agent session through all seven states (offline, no API key)`;

function main(argv: string[]): number {
  const [command] = argv;
  if (command === 'demo') {
    runDemo((line) => console.log(line));
    return 0;
  }
  if (command === undefined || command === 'help' || command === '--help') {
    console.log(usage);
    return command === undefined ? 1 : 0;
  }
  console.error(`unknown command '${command}'\n\n${usage}`);
  return 1;
}

process.exitCode = main(process.argv.slice(2));
