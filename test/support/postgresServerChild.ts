/**
 * Child process of the cleanup test: starts a test PostgreSQL from the installation in argv[2]
 * (JSON), prints the server as one JSON line, and waits there to be killed.
 *
 * @example
 * spawn(process.execPath, ['--import', 'tsx', 'test/support/postgresServerChild.ts', json]);
 */
import type { PostgresInstallation } from './findPostgres.js';
import { startPostgres } from './postgresServer.js';

const installation = JSON.parse(process.argv[2]!) as PostgresInstallation;
const server = await startPostgres({ installation });
process.stdout.write(`${JSON.stringify({ port: server.port, directory: server.directory })}\n`);
// Keeps the process alive: the test kills it with the server running.
setInterval(() => undefined, 60_000);
