/**
 * Child process of the torn-write test: opens a PostgreSQL store (connection string in argv[2],
 * schema in argv[3]) and appends entries 2 to 4 with a transcript record to session `s1`, then
 * prints `done`. The test blocks that write mid-transaction and kills this process there.
 *
 * @example
 * spawn(process.execPath, ['--import', 'tsx', 'test/persistence/postgresAppendChild.ts', url, schema]);
 */
import { createPostgresSessionStore } from '../../src/persistence/postgresSessionStore.js';
import { checkpoint, event, userInput } from './storedEntries.js';

const [connectionString, schema] = process.argv.slice(2);
const store = createPostgresSessionStore({ connectionString: connectionString!, schema: schema! });
const entry = (seq: number) => event(seq, userInput(`entry ${seq}`), 5_000 + seq);
await store.append('s1', {
  after: 1,
  entries: [entry(2), entry(3), entry(4)],
  transcript: [{ index: 0, refs: [2], body: { from: 'message', ref: 2 } }],
  checkpoint: checkpoint(4, 'WaitingForUserInput', 1),
});
process.stdout.write('done\n');
await store.close();
