/**
 * The offline inspector: records agents through their inspection stream and serves a page
 * showing them live — the chart with the active state lit, the event log, the conversation and
 * tool calls, the retry countdown, and time travel through the recorded steps. Every asset ships
 * in the package; the page loads nothing from elsewhere. The HTTP server (`servePage.ts`) is
 * loaded in the background when a server is created, so recording alone loads no `node:http`.
 */
import type { AnyStateMachine } from 'xstate';
import { AgentStatechartError } from '../machine/index.js';
import { checkBindPolicy } from './bindPolicy.js';
import {
  type InspectionObserver,
  InspectionRecorder,
  type InspectionRecorderOptions,
} from './inspectionRecorder.js';
import type { StoredSessionCatalog } from './storedSessionCatalog.js';

/**
 * Options of {@link createInspectorServer} and `startInspectorServer`.
 *
 * @example
 * const options: InspectorServerOptions = { port: 4700 };
 * const shared: InspectorServerOptions = { host: '0.0.0.0', token: process.env.INSPECTOR_TOKEN };
 */
export interface InspectorServerOptions extends InspectionRecorderOptions {
  /** Default 0: a free port chosen by the system (read it from `url`). */
  port?: number;
  /**
   * Interface to listen on. Default `127.0.0.1`: only this machine. Anything else (for example
   * `0.0.0.0`) shows conversations to the network, so it also needs `token`.
   */
  host?: string;
  /** Required on every request when set; the printed `url` carries it. */
  token?: string;
  /**
   * Record into this recorder instead of a new one (for example to serve it twice). Default:
   * `sessions`' recorder when given.
   */
  recorder?: InspectionRecorder;
  /**
   * Stored sessions the page opens on request (`storedSessionCatalog`, on the same recorder):
   * `/?session=ID` replays session `ID` into the page and selects it, showing where it sits in
   * the tree of agents — its parent's session and its subagents' sessions, each a link that opens
   * it. An id the store does not hold gets 404. The caller closes it (`close` stops following).
   */
  sessions?: StoredSessionCatalog;
  /** The page's title. Default `agent-statechart inspector`. */
  title?: string;
  /** Draws a machine as SVG. Default: the package's diagram renderer. */
  renderChart?: (machine: AnyStateMachine) => Promise<string>;
}

/**
 * The inspector server. Recording starts at once; the page is served once `ready` resolves.
 *
 * @example
 * const inspector = createInspectorServer({ port: 4700 });
 * const agent = createAgent({ inspect: inspector.observer });
 * console.log(`inspector: ${await inspector.ready}`);
 */
export interface InspectorServer {
  /**
   * Resolves with the page's address (with `?token=…` when the server has a token) once it
   * listens; rejects if it cannot (the port is taken), a failure also reported to `onError`.
   */
  readonly ready: Promise<string>;
  /** The page's address once listening; `undefined` before. */
  readonly url: string | undefined;
  /** Where the recorded agents live. */
  readonly recorder: InspectionRecorder;
  /** An inspection observer for `createAgent({ inspect })`; agents are named `agent 1`, `agent 2`… */
  readonly observer: InspectionObserver;
  /**
   * An observer whose agents carry `name` in the page.
   *
   * @example
   * createAgent({ inspect: inspector.observe({ name: 'reviewer' }) });
   */
  observe(options?: { name?: string }): InspectionObserver;
  /** Ends open pages' streams and stops listening. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Creates the offline inspector and starts listening in the background (so it fits where an
 * agent is created synchronously); `startInspectorServer` is the same, awaited. It listens on
 * 127.0.0.1 unless told otherwise, and refuses any other address without a token (thrown at once:
 * a configuration mistake); with a token, requests without it get 401.
 *
 * @example
 * const inspector = createInspectorServer();
 * const agent = createAgent({ inspect: inspector.observe({ name: 'demo' }) });
 * inspector.ready.then((url) => console.log(`Inspector: ${url}`), () => undefined);
 */
export function createInspectorServer(options: InspectorServerOptions = {}): InspectorServer {
  const { host, loopbackOnly } = checkBindPolicy(options);
  const { sessions } = options;
  if (
    sessions !== undefined &&
    options.recorder !== undefined &&
    sessions.recorder !== options.recorder
  ) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      'the inspector records into `recorder`, but `sessions` replays into another one: create the catalog on the same recorder',
    );
  }
  const recorder = options.recorder ?? sessions?.recorder ?? new InspectionRecorder(options);
  const served = import('./servePage.js').then(({ servePage }) =>
    servePage({
      recorder,
      host,
      port: options.port ?? 0,
      loopbackOnly,
      token: options.token,
      title: options.title ?? 'agent-statechart inspector',
      renderChart: options.renderChart,
      sessions,
    }),
  );
  let url: string | undefined;
  const ready = served.then((page) => page.ready);
  ready.then(
    (address) => {
      url = address;
    },
    // Awaiting `ready` is optional: a failure is reported to the recorder either way.
    () => undefined,
  );
  let closing: Promise<void> | undefined;
  return {
    ready,
    get url() {
      return url;
    },
    recorder,
    observer: recorder.observe(),
    observe: (observeOptions) => recorder.observe(observeOptions),
    close() {
      closing ??= served.then(
        (page) => page.close(),
        () => undefined,
      );
      return closing;
    },
  };
}
