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
 * the agent shuts down), or a running `InspectorServer` shared by many agents.
 *
 * @example
 * const own: InspectorOption = { name: 'reviewer', port: 4700 };
 */
export type InspectorOption = (InspectorServerOptions & { name?: string }) | InspectorServer;

/** An inspector attached to one agent. */
export interface AttachedInspector {
  server: InspectorServer;
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
  if ('ready' in given) {
    return { server: given, record: given.observe(), release: () => Promise.resolve() };
  }
  const server = createInspectorServer(given);
  server.ready.catch(onError);
  const record = server.observe(given.name === undefined ? {} : { name: given.name });
  return { server, record, release: () => server.close() };
}
