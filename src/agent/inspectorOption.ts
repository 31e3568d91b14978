/**
 * `createAgent({ inspector })`: the offline inspector page for one agent, or a running page shared
 * by many. The page's HTTP server is loaded only when a page is asked for, so an agent without
 * one never loads `node:http` or the page's assets; recording starts at once either way.
 */
import type { InspectionEvent } from 'xstate';
import type { InspectorServer, InspectorServerOptions } from '../inspect/createInspectorServer.js';
import { checkBindPolicy } from '../inspect/bindPolicy.js';
import { InspectionRecorder } from '../inspect/inspectionRecorder.js';

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
  checkBindPolicy(given);
  const recorder = given.recorder ?? new InspectionRecorder(given);
  const started = import('../inspect/createInspectorServer.js').then(({ createInspectorServer }) =>
    createInspectorServer({ ...given, recorder }),
  );
  const ready = started.then((server) => server.ready);
  let url: string | undefined;
  ready.then(
    (address) => {
      url = address;
    },
    (error: unknown) => onError(error),
  );
  let closing: Promise<void> | undefined;
  const server: InspectorServer = {
    ready,
    get url() {
      return url;
    },
    recorder,
    observer: recorder.observe(),
    observe: (options) => recorder.observe(options),
    close() {
      closing ??= started.then(
        (running) => running.close(),
        () => undefined,
      );
      return closing;
    },
  };
  const record = recorder.observe(given.name === undefined ? {} : { name: given.name });
  return { server, record, release: () => server.close() };
}
