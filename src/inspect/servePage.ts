/**
 * The inspector page's HTTP server (node:http only): loaded by `createInspectorServer` when a
 * page is asked for, so an agent that only records never loads it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyStateMachine } from 'xstate';
import { AgentStatechartError, errorMessage } from '../machine/index.js';
import { inspectorScript } from './assets/inspectorScript.js';
import { inspectorStyles } from './assets/inspectorStyles.js';
import { renderInspectorPage } from './assets/renderInspectorPage.js';
import { checkAccess } from './checkAccess.js';
import type { InspectionRecorder } from './inspectionRecorder.js';
import { openInspectorStream } from './openInspectorStream.js';
import { renderChart } from './renderChart.js';
import type { StoredSessionCatalog } from './storedSessionCatalog.js';

const SECURITY_HEADERS = {
  // The page runs only its own script; the SVG it inlines comes from this server.
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  // The URL may carry the token: never leak it to another site.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
} as const;

/** What the page is served from and how. */
export interface PageSettings {
  recorder: InspectionRecorder;
  host: string;
  port: number;
  loopbackOnly: boolean;
  token: string | undefined;
  title: string;
  renderChart: ((machine: AnyStateMachine) => Promise<string>) | undefined;
  /** Stored sessions the page opens on request (`/?session=ID`), if any. */
  sessions?: StoredSessionCatalog | undefined;
}

/** A page being served: its address once listening, and how to stop. */
export interface ServedPage {
  ready: Promise<string>;
  close(): Promise<void>;
}

/**
 * Serves the inspector page for `settings.recorder`: starts listening at once; `ready` resolves
 * with the page's address, or rejects (also reported to the recorder) when it cannot listen.
 *
 * @example
 * const page = servePage({ recorder, host: '127.0.0.1', port: 0, loopbackOnly: true, token: undefined, title, renderChart: undefined });
 */
export function servePage(settings: PageSettings): ServedPage {
  const { recorder, host, loopbackOnly, token, sessions } = settings;
  const charts = new Map<string, Promise<string>>();
  const instance = randomBytes(6).toString('hex');
  const streams = new Set<() => void>();
  const page = renderInspectorPage({ title: settings.title, token });
  const draw = settings.renderChart ?? renderChart;

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

  /** Opens stored session `sessionId` for a page; what to answer instead when it cannot. */
  const openSession = async (
    sessionId: string,
  ): Promise<{ status: number; message: string } | undefined> => {
    if (sessions === undefined) return { status: 404, message: noStoredSession(null) };
    try {
      const view = await sessions.open(sessionId);
      return view === undefined ? { status: 404, message: noStoredSession(sessionId) } : undefined;
    } catch (error) {
      const status = (error as { code?: unknown }).code === 'SESSION_VERSION_MISMATCH' ? 409 : 500;
      return {
        status,
        message: `session ${quoteId(sessionId)} cannot be shown: ${errorMessage(error)}\n`,
      };
    }
  };

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
    const { pathname: path, searchParams } = new URL(
      request.url ?? '/',
      'http://inspector.invalid',
    );
    const send = (status: number, type: string, body: string) => {
      response.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': `${type}; charset=utf-8` });
      response.end(request.method === 'HEAD' ? undefined : body);
    };
    const sessionId = searchParams.get('session');
    if (path === '/' || path === '/index.html') {
      if (sessionId === null) return send(200, 'text/html', page);
      // The page of a stored session: replayed into the recorder first, so the page finds it.
      const refusal = await openSession(sessionId);
      if (refusal !== undefined) return send(refusal.status, 'text/plain', refusal.message);
      return send(200, 'text/html', page);
    }
    if (path === '/api/session-tree') {
      if (sessions === undefined) return send(404, 'text/plain', noStoredSession(null));
      if (sessionId === null) return send(400, 'text/plain', 'name the session: ?session=ID\n');
      const place = await sessions.place(sessionId);
      if (place === undefined) return send(404, 'text/plain', noStoredSession(sessionId));
      return send(200, 'application/json', JSON.stringify(place));
    }
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
        `the inspector cannot listen on ${host}:${settings.port}: ${error.message}`,
        { cause: error },
      );
      recorder.reportError(reason);
      reject(reason);
    };
    server.once('error', failed);
    server.listen(settings.port, host, () => {
      server.off('error', failed);
      server.on('error', (error) => recorder.reportError(error));
      url = pageUrl(server.address() as AddressInfo, host, loopbackOnly, token);
      resolve(url);
    });
  });
  // Awaiting `ready` is optional: a failure is reported to the recorder either way.
  ready.catch(() => undefined);

  let closing: Promise<void> | undefined;
  return {
    ready,
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

/**
 * What a request for a stored session the inspector cannot show gets (plain text: the id is shown,
 * never interpreted).
 */
function noStoredSession(sessionId: string | null): string {
  if (sessionId === null) return 'this inspector shows no stored sessions\n';
  return `there is no session ${quoteId(sessionId)} in this inspector's session store\n`;
}

/** An id as a message quotes it: on one line, and cut short when it is too long to be one. */
function quoteId(sessionId: string): string {
  const shown = sessionId.length > 200 ? `${sessionId.slice(0, 200)}…` : sessionId;
  return JSON.stringify(shown);
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
