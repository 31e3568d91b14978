/**
 * The port the sandbox's proxy answers on, on the command's own loopback (its network namespace
 * has nothing else, so no port can be taken already).
 *
 * @example
 * env.HTTPS_PROXY = `http://127.0.0.1:${NETWORK_RELAY_PORT}`;
 */
export const NETWORK_RELAY_PORT = 3128;

/**
 * Runs inside the sandbox as the parent of the command: it listens on the loopback port and
 * carries each connection to the proxy's Unix socket (bound into the sandbox), then starts the
 * command and exits with its status. A process is needed inside because a network namespace
 * cannot be reached from outside except through a file such as that socket. Plain CommonJS for
 * `node -e`, since it runs outside this package's module graph; Node is the one interpreter a
 * host of this package is sure to have.
 */
const RELAY_SOURCE = `'use strict';
const net = require('node:net');
const { spawn } = require('node:child_process');
const { constants } = require('node:os');
const [socketPath, port, file, ...args] = process.argv.slice(1);
const fail = (what, error, status) => {
  process.stderr.write('sandbox network relay: ' + what + ': ' + error.message + '\\n');
  process.exit(status);
};
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on('error', (error) => fail('cannot listen', error, 125));
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(file, args, { stdio: 'inherit' });
  child.on('error', (error) => fail('cannot start ' + file, error, 127));
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (constants.signals[signal] ?? 0)));
});
`;

/**
 * The start of the command line inside the sandbox when the network is allowed: the relay, to
 * which the command's own arguments are appended.
 *
 * @example
 * const argv = [...networkRelayLauncher('/tmp/.network/proxy.sock'), 'bash', '-c', 'npm ci'];
 */
export function networkRelayLauncher(socketPath: string): string[] {
  return [process.execPath, '-e', RELAY_SOURCE, '--', socketPath, String(NETWORK_RELAY_PORT)];
}

/**
 * The environment that points clients at the relay. Loopback addresses stay direct: they are the
 * command's own (a test server it starts), never the host's.
 *
 * @example
 * const env = { ...process.env, ...proxyEnvironment() };
 */
export function proxyEnvironment(): NodeJS.ProcessEnv {
  const url = `http://127.0.0.1:${NETWORK_RELAY_PORT}`;
  const direct = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    NO_PROXY: direct,
    no_proxy: direct,
  };
}
