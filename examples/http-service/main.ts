/**
 * Runs the example service:
 *
 *     ANTHROPIC_API_KEY=… npx tsx examples/http-service/main.ts
 *
 * `PORT` (default 8080) and `WORKSPACE_ROOT` (default `./agent-workspaces`) can be set.
 */
import { createAgentService } from './createAgentService.js';
import { stopOnSignals } from './http.js';

const service = createAgentService({
  workspaceRoot: process.env.WORKSPACE_ROOT ?? './agent-workspaces',
});
const url = await service.listen(Number(process.env.PORT ?? 8080));
console.log(`agent service listening on ${url}`);

stopOnSignals(() => {
  console.log('shutting every agent down…');
  return service.close();
});
