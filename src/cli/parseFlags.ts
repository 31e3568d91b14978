/**
 * The command line's option parsing: `--flag VALUE` pairs, bare `--switch`es and positional
 * words, with an error that names what the command expects.
 */

/**
 * What {@link parseFlags} found.
 *
 * @example
 * const parsed: ParsedFlags = { values: new Map([['--store', 'a.db']]), switches: new Set(), positional: ['show', 'demo'] };
 */
export interface ParsedFlags {
  values: Map<string, string>;
  switches: Set<string>;
  positional: string[];
}

/**
 * Parses `argv` for `command`: `valued` flags take the next word, `switches` stand alone, and
 * anything else starting with `--` is refused with the list of what is expected.
 *
 * @example
 * parseFlags(['show', 'demo', '--store', 'a.db'], 'sessions', ['--store', '--workspace']);
 * // { values: Map { '--store' => 'a.db' }, switches: Set {}, positional: ['show', 'demo'] }
 */
export function parseFlags(
  argv: readonly string[],
  command: string,
  valued: readonly string[],
  switches: readonly string[] = [],
): ParsedFlags {
  const parsed: ParsedFlags = { values: new Map(), switches: new Set(), positional: [] };
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index]!;
    if (valued.includes(word)) {
      const value = argv[index + 1];
      if (value === undefined) throw new Error(`${word} needs a value`);
      parsed.values.set(word, value);
      index++;
    } else if (switches.includes(word)) {
      parsed.switches.add(word);
    } else if (word.startsWith('--')) {
      const expected = [...valued, ...switches];
      const list =
        expected.length > 1
          ? `${expected.slice(0, -1).join(', ')} or ${expected.at(-1)}`
          : (expected[0] ?? 'no options');
      throw new Error(`unknown option '${word}' for ${command}; expected ${list}`);
    } else {
      parsed.positional.push(word);
    }
  }
  return parsed;
}
