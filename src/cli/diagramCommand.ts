/**
 * `agent-statechart diagram`: draws the agent's chart (or any XState v5 machine) as Mermaid, DOT,
 * SVG or the JSON graph model.
 */
import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { AnyStateMachine } from 'xstate';
import { AgentStatechartError, errorMessage } from '../machine/index.js';
import { loadMachine, toDot, toGraph, toMermaid, toSvg } from '../diagram/index.js';

const FORMATS = ['mermaid', 'dot', 'svg', 'json'] as const;
type DiagramFormat = (typeof FORMATS)[number];

/**
 * The command's usage text.
 *
 * @example
 * console.log(DIAGRAM_USAGE);
 */
export const DIAGRAM_USAGE = `usage: agent-statechart diagram [--format FORMAT] [--out FILE] [--machine MODULE:EXPORT]

  --format FORMAT           mermaid (default), dot, svg, or json (the graph model)
  --out FILE                write to FILE instead of standard output
  --machine MODULE:EXPORT   draw another XState v5 machine: a module path (.js, or .ts when
                            run with tsx) or package, and its export (default: the default
                            export). Without it: the agent's chart.
  --direction TB|LR         top to bottom (default) or left to right
  --no-details              leave entry/exit actions, invoked actors and internal
                            transitions out of the state boxes`;

/**
 * Runs `agent-statechart diagram …` with the arguments after `diagram`; resolves to the exit
 * code. Errors (bad format, unknown export, not a machine) are written to `io.stderr` with the
 * usage, never thrown.
 *
 * @example
 * const code = await runDiagramCommand(['--format', 'mermaid'], {
 *   stdout: (s) => process.stdout.write(s),
 *   stderr: (s) => process.stderr.write(s),
 * });
 * process.exitCode = code;
 */
export async function runDiagramCommand(
  argv: string[],
  io: { stdout: (s: string) => void; stderr: (s: string) => void },
): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv);
  } catch (error) {
    io.stderr(`agent-statechart diagram: ${errorMessage(error)}\n\n${DIAGRAM_USAGE}\n`);
    return 2;
  }
  if (options.help) {
    io.stdout(`${DIAGRAM_USAGE}\n`);
    return 0;
  }
  try {
    const machine = await machineFor(options.machine);
    const output = await render(machine, options);
    if (options.out === undefined) io.stdout(output);
    else {
      await writeFile(options.out, output);
      io.stderr(`wrote ${options.format} diagram of '${machine.id}' to ${options.out}\n`);
    }
    return 0;
  } catch (error) {
    if (error instanceof AgentStatechartError) {
      io.stderr(`agent-statechart diagram: ${error.message}\n`);
      return 1;
    }
    io.stderr(`agent-statechart diagram: ${errorMessage(error)}\n`);
    return 1;
  }
}

interface DiagramCommandOptions {
  format: DiagramFormat;
  out: string | undefined;
  machine: string | undefined;
  direction: 'TB' | 'LR';
  details: boolean;
  help: boolean;
}

function parse(argv: string[]): DiagramCommandOptions {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      format: { type: 'string', short: 'f' },
      out: { type: 'string', short: 'o' },
      machine: { type: 'string', short: 'm' },
      direction: { type: 'string' },
      'no-details': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (positionals.length > 0) {
    throw new Error(`unexpected argument '${positionals.join(' ')}'`);
  }
  const format = values.format ?? 'mermaid';
  if (!isFormat(format)) {
    throw new Error(`unknown format '${format}'; use one of: ${FORMATS.join(', ')}`);
  }
  const direction = values.direction ?? 'TB';
  if (direction !== 'TB' && direction !== 'LR') {
    throw new Error(`unknown direction '${direction}'; use TB or LR`);
  }
  return {
    format,
    out: values.out,
    machine: values.machine,
    direction,
    details: values['no-details'] !== true,
    help: values.help === true,
  };
}

function isFormat(value: string): value is DiagramFormat {
  return (FORMATS as readonly string[]).includes(value);
}

async function machineFor(spec: string | undefined): Promise<AnyStateMachine> {
  if (spec !== undefined) return loadMachine(spec);
  // Loaded lazily so `--machine` works without pulling in the agent's chart.
  const { agentMachine } = await import('../machine/index.js');
  return agentMachine;
}

async function render(machine: AnyStateMachine, options: DiagramCommandOptions): Promise<string> {
  const { details, direction } = options;
  switch (options.format) {
    case 'mermaid':
      return toMermaid(machine, { details, direction });
    case 'dot':
      return toDot(machine, { details, direction });
    case 'svg':
      return toSvg(machine, { details, direction: direction === 'LR' ? 'RIGHT' : 'DOWN' });
    case 'json':
      return `${JSON.stringify(toGraph(machine), null, 2)}\n`;
  }
}
