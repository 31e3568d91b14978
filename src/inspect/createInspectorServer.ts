/**
 * The offline inspector: a small HTTP server (node:http only) that records agents through their
 * inspection stream and serves a page showing them live — the chart with the active state lit,
 * the event log, the conversation and tool calls, the retry countdown, and time travel through
 * the recorded steps. Every asset ships in the package; the page loads nothing from elsewhere.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyStateMachine } from 'xstate';
import { inspectorScript } from './assets/inspectorScript.js';
import { inspectorStyles } from './assets/inspectorStyles.js';
import { renderInspectorPage } from './assets/renderInspectorPage.js';
import { checkBindPolicy } from './bindPolicy.js';
import { checkAccess } from './checkAccess.js';
import {
  type InspectionObserver,
  InspectionRecorder,
  type InspectionRecorderOptions,
} from './inspectionRecorder.js';
import { AgentStatechartError, errorMessage } from '../machine/agentStatechartError.js';
import { openInspectorStream } from './openInspectorStream.js';
import { renderChart } from './renderChart.js';

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
  /** Record into this recorder instead of a new one (for example to serve it twice). */
  recorder?: InspectionRecorder;
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

const SECURITY_HEADERS = {
  // The page runs only its own script; the SVG it inlines comes from this server.
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  // The URL may carry the token: never leak it to another site.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
} as const;

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
  const token = options.token;
  const recorder = options.recorder ?? new InspectionRecorder(options);
  const draw = options.renderChart ?? renderChart;
  const charts = new Map<string, Promise<string>>();
  const instance = randomBytes(6).toString('hex');
  const streams = new Set<() => void>();
  const page = renderInspectorPage({ title: options.title ?? 'agent-statechart inspector', token });

  const chartSvg = (chartId: string): Promise<string> | undefined => {
    const machine = recorder.chart(chartId);
    if (machine === undefined) return undefined;
    let svg = charts.get(chartId);
    if (svg === undefined) {
      svg = draw(machine);
      charts.set(chartId, svg);
      // A failed drawing is retried on the next request rather than cached.
      svg.catch(() => charts.delete(chartId));
    }
    return svg;
  };

  // Each machine's chart is drawn when its first agent appears, not when a page first asks: a
  // page opened later, perhaps while the agent streams, gets the chart at once.
  const drawAhead = (chartId: string | null | undefined) => {
    if (chartId === null || chartId === undefined || charts.has(chartId)) return;
    // Later, not inside the agent's own start-up (the recorder calls back from its inspection).
    setImmediate(() => {
      if (closing === undefined) chartSvg(chartId)?.catch(() => undefined);
    });
  };
  for (const agent of recorder.agents()) drawAhead(agent.chartId);
  const stopDrawingAhead = recorder.subscribe((change) => {
    if (change.type !== 'agent') return;
    drawAhead(recorder.agents().find((agent) => agent.id === change.agentId)?.chartId);
  });

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const decision = checkAccess(request, { token, loopbackOnly });
    if (!decision.allowed) {
      const headers: Record<string, string> = { 'Content-Type': 'text/plain; charset=utf-8' };
      if (decision.status === 401) headers['WWW-Authenticate'] = 'Bearer realm="inspector"';
      response.writeHead(decision.status, { ...SECURITY_HEADERS, ...headers });
      response.end(`${decision.message}\n`);
      return;
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { ...SECURITY_HEADERS, Allow: 'GET, HEAD' }).end();
      return;
    }
    const path = new URL(request.url ?? '/', 'http://inspector.invalid').pathname;
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': `${type}; charset=utf-8` });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    if (path === '/' || path === '/index.html') return send(200, 'text/html', page);
    if (path === '/assets/inspector.js') return send(200, 'text/javascript', inspectorScript);
    if (path === '/assets/inspector.css') return send(200, 'text/css', inspectorStyles);
    if (path === '/api/agents')
      return send(200, 'application/json', JSON.stringify(recorder.agents()));
    if (path === '/events') {
      const lastEventId = request.headers['last-event-id'];
      const stop = openInspectorStream(response, {
        recorder,
        instance,
        lastEventId: Array.isArray(lastEventId) ? lastEventId[0] : lastEventId,
      });
      streams.add(stop);
      response.on('close', () => streams.delete(stop));
      return;
    }
    const chart = /^\/charts\/([\w-]+)\.svg$/.exec(path);
    if (chart?.[1] !== undefined) {
      const svg = chartSvg(chart[1]);
      if (svg === undefined) return send(404, 'text/plain', `no chart named ${chart[1]}\n`);
      try {
        return send(200, 'image/svg+xml', await svg);
      } catch (error) {
        return send(500, 'text/plain', `the chart could not be drawn: ${errorMessage(error)}\n`);
      }
    }
    send(404, 'text/plain', 'not found\n');
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      // Nothing a request does may take the host down; answer if we still can.
      if (!response.headersSent) response.writeHead(500, SECURITY_HEADERS);
      response.end(`inspector error: ${errorMessage(error)}\n`);
    });
  });
  // Errors after start (a client resetting its connection) must not become uncaught exceptions.
  server.on('clientError', (_error, socket) => socket.destroy());
  let url: string | undefined;
  const ready = new Promise<string>((resolve, reject) => {
    const failed = (error: Error) => {
      const reason = new AgentStatechartError(
        'LISTEN_FAILED',
        `the inspector cannot listen on ${host}:${options.port ?? 0}: ${error.message}`,
        { cause: error },
      );
      recorder.reportError(reason);
      reject(reason);
    };
    server.once('error', failed);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', failed);
      server.on('error', (error) => recorder.reportError(error));
      url = pageUrl(server.address() as AddressInfo, host, loopbackOnly, token);
      resolve(url);
    });
  });
  // Awaiting `ready` is optional: a failure is reported to onError either way.
  ready.catch(() => undefined);

  const defaultObserver = recorder.observe();
  let closing: Promise<void> | undefined;
  return {
    ready,
    get url() {
      return url;
    },
    recorder,
    observer: defaultObserver,
    observe: (observeOptions) => recorder.observe(observeOptions),
    close() {
      closing ??= new Promise<void>((resolve) => {
        stopDrawingAhead();
        for (const stop of streams) stop();
        streams.clear();
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

function pageUrl(
  address: AddressInfo,
  host: string,
  loopbackOnly: boolean,
  token: string | undefined,
): string {
  const shownHost = !loopbackOnly
    ? host
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
  return `http://${shownHost}:${address.port}/${query}`;
}
