/**
 * The offline inspector, awaited: resolves once the page is being served.
 */
import {
  createInspectorServer,
  type InspectorServer,
  type InspectorServerOptions,
} from './createInspectorServer.js';

/**
 * An inspector server that is listening: its `url` is known.
 *
 * @example
 * const inspector: StartedInspectorServer = await startInspectorServer();
 * console.log(inspector.url);
 */
export type StartedInspectorServer = InspectorServer & { readonly url: string };

/**
 * Starts the offline inspector and resolves once it listens: the page (with the chart lit live,
 * the event log, the conversation and time travel) is at `url`.
 *
 * @example
 * import { createAgent } from 'agent-statechart';
 * import { startInspectorServer } from 'agent-statechart/inspect';
 *
 * const inspector = await startInspectorServer({ port: 4700 });
 * console.log(`Inspector: ${inspector.url}`);
 * const agent = createAgent({ inspect: inspector.observe({ name: 'demo' }) });
 * agent.send('List the files here');
 * await agent.waitUntilIdle();
 * await agent.shutdown();
 * await inspector.close();
 */
export async function startInspectorServer(
  options: InspectorServerOptions = {},
): Promise<StartedInspectorServer> {
  const server = createInspectorServer(options);
  const url = await server.ready;
  // Listening, `url` no longer changes: a plain property where it was a getter.
  return { ...server, url };
}
