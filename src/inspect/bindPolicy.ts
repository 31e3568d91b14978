/**
 * Where the inspector may listen. It shows whole conversations, so it listens on this machine
 * only unless told otherwise, and never beyond it without a token. Checked before anything is
 * started, so a configuration mistake is thrown at once.
 */
import { AgentStatechartError } from '../machine/index.js';

/**
 * Whether `host` names this machine only (the loopback interface).
 *
 * @example
 * isLoopbackHost('127.0.0.1'); // true
 * isLoopbackHost('0.0.0.0');   // false: every interface
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127(\.\d{1,3}){3}$/.test(bare);
}

/**
 * The interface to listen on and whether it is loopback only; throws `UNSAFE_BIND` for another
 * interface without a token and `INVALID_OPTION` for a token too short to guard anything.
 *
 * @example
 * checkBindPolicy({}); // { host: '127.0.0.1', loopbackOnly: true }
 */
export function checkBindPolicy(options: { host?: string; token?: string }): {
  host: string;
  loopbackOnly: boolean;
} {
  const host = options.host ?? '127.0.0.1';
  const { token } = options;
  if (token !== undefined && token.length < 16) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      'the inspector token must be at least 16 characters; generate one with `openssl rand -hex 16`',
    );
  }
  const loopbackOnly = isLoopbackHost(host);
  if (!loopbackOnly && token === undefined) {
    throw new AgentStatechartError(
      'UNSAFE_BIND',
      `refusing to serve the inspector on ${host} without a token: it shows whole conversations. ` +
        `Pass { token } (for example from \`openssl rand -hex 16\`), or keep the default host 127.0.0.1`,
    );
  }
  return { host, loopbackOnly };
}
