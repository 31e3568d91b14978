/**
 * Child process of the crash test: writes argv[2] with the content argv[3] through
 * writeFileAtomically, says `ready` when only the rename is left, and waits there to be killed.
 *
 * @example
 * spawn(process.execPath, ['--import', 'tsx', 'test/support/hangBeforeCommit.ts', path, 'new']);
 */
import { writeFileAtomically } from '../../src/actors/tools/builtins/writeFileAtomically.js';

const [path, content] = process.argv.slice(2);
await writeFileAtomically(path!, content!, {
  beforeCommit: () =>
    new Promise<void>(() => {
      process.stdout.write('ready\n');
      // Keeps the process alive: the test kills it here, between write and rename.
      setInterval(() => undefined, 60_000);
    }),
});
