/**
 * Runs the example service:
 *
 *     ANTHROPIC_API_KEY=… npx tsx examples/http-service/main.ts
 *
 * `PORT` (default 8080) and `WORKSPACE_ROOT` (default `./agent-workspaces`) can be set.
 */
import { createAgentService } from './createAgentService.js';

const service = createAgentService({
  workspaceRoot: process.env.WORKSPACE_ROOT ?? './agent-workspaces',
});
const url = await service.listen(Number(process.env.PORT ?? 8080));
console.log(`agent service listening on ${url}`);

const stop = () => {
  console.log('shutting every agent down…');
  service.close().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
