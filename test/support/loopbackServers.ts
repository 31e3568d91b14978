import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';

/**
 * An HTTP server on 127.0.0.1 that answers every request with `body`, and its port.
 *
 * @example
 * const [server, port] = await listen('hello');
 */
export async function listen(body: string): Promise<[Server, number]> {
  const server = createServer((_req, res) => res.end(body));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return [server, (server.address() as AddressInfo).port];
}

/**
 * Two loopback servers for the tests of a describe block, answering `allowed` and `other`: one
 * to put on an allow-list, one to keep off it.
 *
 * @example
 * const ports = useLoopbackServers();
 * it('reaches it', () => fetch(`http://127.0.0.1:${ports.allowed}/`));
 */
export function useLoopbackServers(): { allowed: number; other: number } {
  const servers: Server[] = [];
  const ports = { allowed: 0, other: 0 };
  beforeAll(async () => {
    for (const name of ['allowed', 'other'] as const) {
      const [server, port] = await listen(name);
      servers.push(server);
      ports[name] = port;
    }
  });
  afterAll(() => {
    for (const server of servers.splice(0)) server.close();
  });
  return ports;
}
