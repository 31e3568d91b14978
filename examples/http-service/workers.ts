/**
 * The service as N workers on one PostgreSQL, each a process of its own on its own port:
 *
 *     DATABASE_URL=postgres://… ANTHROPIC_API_KEY=… npm run example:workers
 *
 * `WORKERS` (default 3) and `PORT` (the first worker's, default 8080; the others follow) can be
 * set; the rest of the environment reaches every worker (see `workerMain.ts`). Ctrl-C stops them
 * all. Put any load balancer in front: every worker answers for every session.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const count = Number(process.env.WORKERS ?? 3);
const firstPort = Number(process.env.PORT ?? 8080);
const children: ChildProcess[] = [];
for (let index = 0; index < count; index++) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'workerMain.ts')],
    {
      env: { ...process.env, PORT: String(firstPort + index) },
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  child.once('exit', (code, signal) =>
    console.log(`worker ${index + 1} ended (${code ?? signal})`),
  );
  children.push(child);
}
const stop = () => {
  for (const child of children) child.kill('SIGTERM');
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
