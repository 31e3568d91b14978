/**
 * `createAgent({ inspector })`: the offline inspector page for one agent, or a running page shared
 * by many. Recording starts at once; the page's HTTP server is loaded in the background only when
 * a page is asked for.
 */
import type { InspectionEvent } from 'xstate';
import {
  createInspectorServer,
  type InspectorServer,
  type InspectorServerOptions,
} from '../inspect/index.js';

/**
 * What `createAgent({ inspector })` takes: options to start a page for this agent (closed when
 * the agent shuts down), or a running `InspectorServer` shared by many agents, alone or with the
 * name the agent is shown under.
 *
 * @example
 * const own: InspectorOption = { name: 'reviewer', port: 4700 };
 * const shared: InspectorOption = { server: await startInspectorServer(), name: 'reviewer' };
 */
export type InspectorOption =
  | (InspectorServerOptions & { name?: string })
  | InspectorServer
  | { server: InspectorServer; name: string };

/** An inspector attached to one agent. */
export interface AttachedInspector {
  server: InspectorServer;
  /** The name the agent was asked to be shown under, if any. */
  name: string | undefined;
  /** The agent's inspection observer. */
  record: (event: InspectionEvent) => void;
  /** Called when the agent shuts down: closes a page started for it alone. */
  release: () => Promise<void>;
}

/**
 * Attaches the inspector `given` asks for. A page that cannot listen (port taken) is reported to
 * `onError`; the agent runs on without it. A bind policy mistake (another interface without a
 * token) throws at once.
 *
 * @example
 * const inspector = attachInspector({ name: 'demo' }, (error) => console.warn(error));
 */
export function attachInspector(
  given: InspectorOption,
  onError: (error: unknown) => void,
): AttachedInspector {
  const shared = (server: InspectorServer, name: string | undefined): AttachedInspector => ({
    server,
    name,
    record: server.observe(name === undefined ? {} : { name }),
    release: () => Promise.resolve(),
  });
  if ('ready' in given) return shared(given, undefined);
  if ('server' in given) return shared(given.server, given.name);
  const server = createInspectorServer(given);
  server.ready.catch(onError);
  const record = server.observe(given.name === undefined ? {} : { name: given.name });
  return { server, name: given.name, record, release: () => server.close() };
}
