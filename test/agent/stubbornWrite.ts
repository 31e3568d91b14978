/**
 * A mutating tool for interrupt tests that hears the abort and finishes anyway, when the test says.
 */
import { z } from 'zod';
import { defineTool, type Tool } from '../../src/index.js';

/** The tool, with the moment its call began and the switch that lets it finish. */
export interface StubbornWrite {
  tool: Tool;
  /** Resolves once a call is running (so an interrupt aborts a call that has started). */
  begun: Promise<void>;
  /** Lets the running call finish, reporting `wrote <path>`. */
  finish: () => void;
}

/**
 * `stubborn_write`: writes nothing, and finishes only when `finish` is called.
 *
 * @example
 * const stubborn = stubbornWrite();
 * agent.send('write a.txt');
 * await stubborn.begun;
 * agent.interrupt();
 */
export function stubbornWrite(): StubbornWrite {
  let finish: () => void = () => undefined;
  const finishing = new Promise<void>((resolve) => (finish = resolve));
  let begin: () => void = () => undefined;
  const begun = new Promise<void>((resolve) => (begin = resolve));
  const tool = defineTool({
    name: 'stubborn_write',
    description: 'Writes a file, finishing even when told to stop.',
    input: z.object({ path: z.string() }),
    mutating: true,
    execute: async ({ path }) => {
      begin();
      await finishing;
      return `wrote ${path}`;
    },
  });
  return { tool, begun, finish: () => finish() };
}
