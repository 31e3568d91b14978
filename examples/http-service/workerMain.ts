/**
 * One worker of the service on PostgreSQL (start several; `workers.ts` does):
 *
 *     DATABASE_URL=postgres://… ANTHROPIC_API_KEY=… npx tsx examples/http-service/workerMain.ts
 *
 * `PORT` (default 8080; 0 for any free one) and `WORKSPACE_ROOT` (default `./agent-workspaces`,
 * shared by every worker: a session works in `<root>/<session id>` whoever drives it) can be set;
 * `ANTHROPIC_BASE_URL` points the model client elsewhere, and `AGENT_HOOKS` names a module exporting
 * `hooks` (see `hooksModule.ts`; every worker must be given the same). Prints `listening <url>`.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { createBuiltinTools, createToolRegistry } from 'agent-statechart';
import { startSessionWorker } from 'agent-statechart/dbos';
import { createWorkerService } from './createWorkerService.js';
import { loadHooks } from './hooksModule.js';
import { stopOnSignals } from './http.js';

const connectionString = process.env.DATABASE_URL;
if (!connectionString) {
  console.error('set DATABASE_URL to the PostgreSQL every worker shares');
  process.exit(2);
}
const workspaceRoot = resolve(process.env.WORKSPACE_ROOT ?? './agent-workspaces');
const tools = createToolRegistry(createBuiltinTools());
const worker = await startSessionWorker({
  connectionString,
  // The model may ask the user questions: clients answer them at /sessions/:id/answers/:callId.
  agent: { tools: tools.specs(), permissions: { mode: 'default' }, askUser: true },
  tools,
  workspace: (sessionId) => {
    const workspace = join(workspaceRoot, sessionId);
    mkdirSync(workspace, { recursive: true });
    return workspace;
  },
  // The chart retries; the SDK must not retry underneath it.
  llm: new Anthropic({ maxRetries: 0 }),
  // Each hook runs as a step of the drive, on whichever worker drives the session.
  ...(await loadHooks(process.env.AGENT_HOOKS)),
});
const service = createWorkerService(worker);
const url = await service.listen(Number(process.env.PORT ?? 8080));
console.log(`listening ${url}`);

stopOnSignals(() => Promise.all([service.close(), worker.stop()]));
