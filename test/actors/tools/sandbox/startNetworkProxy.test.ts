import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  isAllowedHost,
  parseAllowedHosts,
  parseHostPort,
} from '../../../../src/actors/tools/sandbox/allowedHosts.js';
import {
  type NetworkProxy,
  startNetworkProxy,
} from '../../../../src/actors/tools/sandbox/startNetworkProxy.js';
import { listen, useLoopbackServers } from '../../../support/loopbackServers.js';
import { useTempDirs } from '../tempDir.js';

const dirs = useTempDirs();

describe('allowNetwork entries', () => {
  it('read host:port, [ipv6]:port and *.domain:port', () => {
    expect(parseHostPort('Registry.NPMjs.org:443')).toEqual({
      host: 'registry.npmjs.org',
      port: 443,
      subdomains: false,
    });
    expect(parseHostPort('[::1]:8080')).toEqual({ host: '::1', port: 8080, subdomains: false });
    expect(parseHostPort('*.github.com:443')).toEqual({
      host: 'github.com',
      port: 443,
      subdomains: true,
    });
    for (const bad of [
      'example.com',
      'example.com:0',
      'example.com:70000',
      '::1:80',
      'a*b:1',
      '*.:1',
    ]) {
      expect(parseHostPort(bad)).toBeNull();
    }
  });

  it('match exactly, by port, and *. only below the domain', () => {
    const allowed = parseAllowedHosts(['example.com:443', '*.github.com:443']);
    expect(isAllowedHost(allowed, 'EXAMPLE.com.', 443)).toBe(true);
    expect(isAllowedHost(allowed, 'example.com', 80)).toBe(false);
    expect(isAllowedHost(allowed, 'evil-example.com', 443)).toBe(false);
    expect(isAllowedHost(allowed, 'api.github.com', 443)).toBe(true);
    expect(isAllowedHost(allowed, 'github.com', 443)).toBe(false);
    expect(isAllowedHost(allowed, 'github.com.evil.net', 443)).toBe(false);
  });
});

describe('the sandbox network proxy', () => {
  const ports = useLoopbackServers();
  let proxy: NetworkProxy | undefined;
  let socketPath: string;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  async function start(allowNetwork: string[]) {
    socketPath = join(await dirs.make(), 'proxy.sock');
    proxy = await startNetworkProxy(socketPath, parseAllowedHosts(allowNetwork));
  }

  /** CONNECT through the proxy; resolves to the status and, when tunnelled, the answer of a GET. */
  function tunnel(target: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request({ socketPath, method: 'CONNECT', path: target });
      req.on('connect', (res, socket) => {
        if (res.statusCode !== 200) {
          socket.destroy();
          resolve(String(res.statusCode));
          return;
        }
        let body = '';
        socket.on('data', (chunk: Buffer) => (body += chunk.toString()));
        socket.on('end', () => resolve(`200 ${body.split('\r\n\r\n')[1]}`));
        socket.write(`GET / HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n\r\n`);
      });
      req.on('error', reject);
      req.end();
    });
  }

  function get(url: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const req = request({ socketPath, path: url }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve(`${res.statusCode} ${body.trim()}`));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('tunnels to an allowed host:port and refuses any other', async () => {
    await start([`127.0.0.1:${ports.allowed}`]);
    expect(await tunnel(`127.0.0.1:${ports.allowed}`)).toBe('200 allowed');
    expect(await tunnel(`127.0.0.1:${ports.other}`)).toBe('403');
    expect(await tunnel(`localhost:${ports.allowed}`)).toBe('403');
  });

  it('forwards plain http:// requests to an allowed host:port only, saying why it refuses', async () => {
    await start([`127.0.0.1:${ports.allowed}`]);
    expect(await get(`http://127.0.0.1:${ports.allowed}/`)).toBe('200 allowed');
    expect(await get(`http://127.0.0.1:${ports.other}/`)).toBe(
      `403 the sandbox allows no connection to 127.0.0.1:${ports.other}; it is not in the bash tool's allowNetwork list`,
    );
    expect(await get('/relative')).toMatch(/^400 the proxy takes absolute http:\/\/ URLs/);
  });

  it('answers 502 when an allowed host does not answer', async () => {
    const closed = await listen('gone');
    const port = closed[1];
    closed[0].close();
    await start([`127.0.0.1:${port}`]);
    expect(await tunnel(`127.0.0.1:${port}`)).toBe('502');
  });

  it('cuts open tunnels when closed, and survives garbage', async () => {
    await start([`127.0.0.1:${ports.allowed}`]);
    const garbage = connect(socketPath);
    garbage.on('error', () => undefined);
    garbage.end('not http at all\r\n\r\n');
    const open = await new Promise<Socket>((resolve) => {
      request({ socketPath, method: 'CONNECT', path: `127.0.0.1:${ports.allowed}` })
        .on('connect', (_res, socket) => resolve(socket))
        .end();
    });
    const closed = new Promise((resolve) => open.on('close', resolve));
    await proxy!.close();
    proxy = undefined;
    await expect(closed).resolves.toBe(false);
  });
});
