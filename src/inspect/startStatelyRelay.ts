/**
 * The relay between this process and Stately's inspector UI: a WebSocket server that hands what
 * one client sends (the agent's inspection events) to every other (the page below, open in a
 * browser), and a page that embeds Stately's hosted inspector and passes the events on to it. It
 * shows whole conversations, so, like the offline inspector, it listens on this machine only
 * unless told otherwise, and never beyond it without a token.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { WebSocket as RelaySocket } from 'ws';
import { AgentStatechartError, errorMessage } from '../machine/index.js';
import { checkBindPolicy } from './bindPolicy.js';
import { type AccessSettings, checkAccess } from './checkAccess.js';
import { importOptionalPeer } from '../persistence/index.js';

/**
 * Where the relay listens.
 *
 * @example
 * const options: StatelyRelayOptions = { port: 4242 };
 */
export interface StatelyRelayOptions {
  /** Default 0: a free port chosen by the system (read it from `pageUrl`). */
  port?: number;
  /**
   * Interface to listen on. Default `127.0.0.1`: only this machine. Anything else needs a `token`
   * (it shows whole conversations).
   */
  host?: string;
  /** Required on every request and connection when set (the page's URL carries it). */
  token?: string;
}

/**
 * A running relay.
 *
 * @example
 * const relay = await startStatelyRelay();
 * console.log(`open ${relay.pageUrl}`);
 * await relay.stop();
 */
export interface StatelyRelay {
  /** The page to open in a browser: Stately's inspector, fed by this relay. */
  readonly pageUrl: string;
  /** Where a process sends its inspection events. */
  readonly socketUrl: string;
  /** Closes every connection and stops listening. */
  stop(): Promise<void>;
}

/** Where Stately's inspector UI is served, and the origin its messages come from. */
const STATELY_INSPECTOR = 'https://stately.ai/inspect';
const STATELY_ORIGIN = new URL(STATELY_INSPECTOR).origin;

/** Messages kept for a page opened after the agent started (its chart is among the first). */
const KEPT_MESSAGES = 200;

/**
 * The page's script: it connects back to the relay it was served by (the token in its own URL
 * included) and, once Stately's UI in the frame says it is ready, posts it every event received.
 */
const BRIDGE_SCRIPT = `
const frame = document.getElementById('stately');
const waiting = [];
let ready = false;
const show = (event) => frame.contentWindow.postMessage(event, ${JSON.stringify(STATELY_ORIGIN)});
window.addEventListener('message', (message) => {
  if (message.origin !== ${JSON.stringify(STATELY_ORIGIN)}) return;
  if (message.data && message.data.type === '@statelyai.connected') {
    ready = true;
    waiting.splice(0).forEach(show);
  }
});
const socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/' + location.search);
socket.onmessage = (message) => {
  const event = JSON.parse(message.data);
  if (ready) show(event);
  else waiting.push(event);
};
`;

const BRIDGE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Stately inspector · agent-statechart</title>
<style>html, body, iframe { margin: 0; width: 100%; height: 100%; border: 0; display: block; }</style>
</head>
<body>
<iframe id="stately" src="${STATELY_INSPECTOR}" title="Stately inspector"></iframe>
<script>${BRIDGE_SCRIPT}</script>
</body>
</html>
`;

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  // The page runs its own script only, frames Stately's UI only, and connects back here only.
  'Content-Security-Policy': `default-src 'none'; script-src 'sha256-${createHash('sha256').update(BRIDGE_SCRIPT).digest('base64')}'; style-src 'unsafe-inline'; frame-src ${STATELY_ORIGIN}; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  'X-Content-Type-Options': 'nosniff',
  // The URL may carry the token: the framed UI must not receive it as a referrer.
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
} as const;

/**
 * Starts the relay and resolves once it listens; rejects with `LISTEN_FAILED` when it cannot
 * (the port is taken), `UNSAFE_BIND` for another interface without a token.
 *
 * @example
 * const relay = await startStatelyRelay();
 * const stately = await createStatelyInspector({ url: relay.socketUrl });
 */
export async function startStatelyRelay(options: StatelyRelayOptions = {}): Promise<StatelyRelay> {
  const { host, loopbackOnly } = checkBindPolicy(options);
  const access: AccessSettings = { token: options.token, loopbackOnly };
  const { WebSocketServer } = await importOptionalPeer(
    'ws',
    "Stately's inspector relay",
    () => import('ws'),
  );
  const sockets = new WebSocketServer({ noServer: true });
  const kept: string[] = [];
  sockets.on('connection', (socket: RelaySocket) => {
    socket.on('error', () => socket.terminate());
    for (const message of kept) socket.send(message);
    socket.on('message', (data: Buffer) => {
      const message = data.toString('utf8');
      kept.push(message);
      if (kept.length > KEPT_MESSAGES) kept.shift();
      for (const other of sockets.clients) {
        if (other !== socket && other.readyState === other.OPEN) other.send(message);
      }
    });
  });

  const server = createServer((request, response) => {
    const decision = checkAccess(request, access);
    if (!decision.allowed) {
      response.writeHead(decision.status, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end(`${decision.message}\n`);
      return;
    }
    const path = new URL(request.url ?? '/', 'http://relay.invalid').pathname;
    if (request.method !== 'GET' || path !== '/') {
      response.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('not found\n');
      return;
    }
    response.writeHead(200, PAGE_HEADERS).end(BRIDGE_PAGE);
  });
  server.on('clientError', (_error, socket: Socket) => socket.destroy());
  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const decision = checkAccess(request, access);
    const refusal = !decision.allowed
      ? `${decision.status} ${decision.message}`
      : foreignOrigin(request)
        ? '403 connections from other sites are refused'
        : undefined;
    if (refusal !== undefined) {
      socket.end(`HTTP/1.1 ${refusal}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  });

  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new AgentStatechartError(
          'LISTEN_FAILED',
          `cannot start Stately's relay on ${host}:${port}: ${errorMessage(error)}; choose another relay.port`,
          { cause: error },
        ),
      ),
    );
    server.listen(port, host, () => resolve());
  });
  // Errors after start must not become uncaught exceptions of the host.
  server.on('error', () => undefined);

  const address = server.address() as AddressInfo;
  const shownHost = !loopbackOnly
    ? host
    : address.family === 'IPv6'
      ? `[${address.address}]`
      : address.address;
  const query = options.token === undefined ? '' : `?token=${encodeURIComponent(options.token)}`;
  let stopping: Promise<void> | undefined;
  return {
    pageUrl: `http://${shownHost}:${address.port}/${query}`,
    socketUrl: `ws://${shownHost}:${address.port}/${query}`,
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        for (const socket of sockets.clients) socket.terminate();
        sockets.close();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

/**
 * A browser sends the page's origin with a WebSocket: any other site's page could otherwise read
 * the conversations through a relay on this machine. Processes send none.
 */
function foreignOrigin(request: IncomingMessage): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return false;
  return URL.canParse(origin) ? new URL(origin).host !== request.headers.host : true;
}
