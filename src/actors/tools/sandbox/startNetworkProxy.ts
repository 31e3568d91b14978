import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type ServerResponse,
} from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { type AllowedHost, isAllowedHost, parseHostPort } from './allowedHosts.js';

/**
 * A running {@link startNetworkProxy}.
 *
 * @example
 * const proxy = await startNetworkProxy('/tmp/x/proxy.sock', allowed);
 * await proxy.close();
 */
export interface NetworkProxy {
  /** Stops listening and cuts every connection still open. */
  close(): Promise<void>;
}

/** Headers meant for the proxy itself or for one hop, never forwarded (RFC 9110 §7.6.1). */
const HOP_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * An HTTP proxy listening on a Unix socket, the sandbox's only way out: it opens a connection
 * only to a `host:port` in `allowed`. It takes `CONNECT host:port` (HTTPS and any other TCP
 * protocol) and plain `http://` requests in absolute form; anything else is answered 403 with
 * the reason, which the client inside shows to the model.
 *
 * The allowed name is trusted to resolve where it should: the proxy dials it as given.
 *
 * @example
 * const proxy = await startNetworkProxy(socketPath, parseAllowedHosts(['registry.npmjs.org:443']));
 * // … run the command, its relay connecting to socketPath …
 * await proxy.close();
 */
export async function startNetworkProxy(
  socketPath: string,
  allowed: readonly AllowedHost[],
): Promise<NetworkProxy> {
  const open = new Set<Duplex>();
  const track = (socket: Duplex): void => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };
  const server = createServer((req, res) => forwardRequest(req, res, allowed, track));
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) =>
    tunnel(req, client, head, allowed, track),
  );
  // A malformed request from inside must not become an error event of the agent's process.
  server.on('clientError', (_error, socket: Duplex) => socket.destroy());

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of open) socket.destroy();
      }),
  };
}

function tunnel(
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  allowed: readonly AllowedHost[],
  track: (socket: Duplex) => void,
): void {
  client.on('error', () => client.destroy());
  const target = parseHostPort(req.url ?? '');
  if (target === null || target.subdomains) {
    refuse(client, 400, `CONNECT needs host:port, got ${JSON.stringify(req.url)}`);
    return;
  }
  if (!isAllowedHost(allowed, target.host, target.port)) {
    refuse(client, 403, notAllowed(req.url ?? ''));
    return;
  }
  const upstream: Socket = connect({ host: target.host, port: target.port });
  track(upstream);
  let connected = false;
  upstream.once('connect', () => {
    connected = true;
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', (error) => {
    if (!connected) refuse(client, 502, `could not connect to ${req.url}: ${error.message}`);
    else client.destroy();
  });
  client.once('close', () => upstream.destroy());
}

function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  allowed: readonly AllowedHost[],
  track: (socket: Duplex) => void,
): void {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    answer(res, 400, `the proxy takes absolute http:// URLs and CONNECT, got ${req.url}`);
    return;
  }
  if (url.protocol !== 'http:') {
    answer(res, 400, `the proxy forwards http:// requests; use CONNECT for ${url.protocol}`);
    return;
  }
  const port = url.port === '' ? 80 : Number(url.port);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!isAllowedHost(allowed, host, port)) {
    answer(res, 403, notAllowed(`${url.hostname}:${port}`));
    return;
  }
  const upstream = request(
    {
      host,
      port,
      method: req.method,
      path: `${url.pathname}${url.search}`,
      headers: forwardedHeaders(req.headers),
      agent: false,
    },
    (response) => {
      res.writeHead(response.statusCode ?? 502, forwardedHeaders(response.headers));
      response.pipe(res);
    },
  );
  upstream.on('socket', track);
  upstream.on('error', (error) => {
    if (res.headersSent) res.destroy();
    else answer(res, 502, `could not reach ${url.host}: ${error.message}`);
  });
  req.pipe(upstream);
}

function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const kept: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!HOP_HEADERS.has(name)) kept[name] = value;
  }
  return kept;
}

function notAllowed(target: string): string {
  return `the sandbox allows no connection to ${target}; it is not in the bash tool's allowNetwork list`;
}

function refuse(client: Duplex, status: 400 | 403 | 502, reason: string): void {
  const text = {
    400: 'Bad Request',
    403: 'Forbidden',
    502: 'Bad Gateway',
  }[status];
  client.end(
    `HTTP/1.1 ${status} ${text}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(reason) + 1}\r\nConnection: close\r\n\r\n${reason}\n`,
  );
}

function answer(res: ServerResponse, status: number, reason: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain', Connection: 'close' });
  res.end(`${reason}\n`);
}
