/**
 * Runs the example service:
 *
 *     ANTHROPIC_API_KEY=… npx tsx examples/http-service/main.ts
 *
 * `PORT` (default 8080), `WORKSPACE_ROOT` (default `./agent-workspaces`) and `SESSIONS_DB` (the
 * SQLite file the sessions live in, default `<WORKSPACE_ROOT>/sessions.db`) can be set, and
 * `AGENT_HOOKS`, the path of a module exporting `hooks` for every agent (see `hooksModule.ts`).
 * Stop it and start it again: every session goes on where it was.
 */
import { join } from 'node:path';
import { createSqliteSessionStore } from 'agent-statechart';
import { createAgentService } from './createAgentService.js';
import { loadHooks } from './hooksModule.js';
import { stopOnSignals } from './http.js';

const workspaceRoot = process.env.WORKSPACE_ROOT ?? './agent-workspaces';
const store = createSqliteSessionStore({
  path: process.env.SESSIONS_DB ?? join(workspaceRoot, 'sessions.db'),
});
const service = createAgentService({
  workspaceRoot,
  store,
  ...(await loadHooks(process.env.AGENT_HOOKS)),
});
const url = await service.listen(Number(process.env.PORT ?? 8080));
console.log(`agent service listening on ${url}`);

stopOnSignals(() => {
  console.log('taking every session out of memory (they stay in the store)…');
  return service.close().then(() => store.close());
});
