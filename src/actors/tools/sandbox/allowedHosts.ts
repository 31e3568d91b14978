import { AgentStatechartError } from '../../../machine/index.js';

/**
 * One entry of `allowNetwork`: a host (lower case, IPv6 without brackets) and a port.
 *
 * @example
 * const entry: AllowedHost = { host: 'example.com', port: 443, subdomains: true }; // *.example.com:443
 */
export interface AllowedHost {
  host: string;
  port: number;
  /** `*.host`: any name ending in `.host`, not `host` itself. */
  subdomains: boolean;
}

const HOST_PORT = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]/@]+):(\d{1,5})$/;

/**
 * Reads `host:port`, `[ipv6]:port` or `*.domain:port`, or `null` when the text is none of these.
 *
 * @example
 * parseHostPort('*.npmjs.org:443'); // { host: 'npmjs.org', port: 443, subdomains: true }
 * parseHostPort('[::1]:8080'); // { host: '::1', port: 8080, subdomains: false }
 */
export function parseHostPort(text: string): AllowedHost | null {
  const match = HOST_PORT.exec(text);
  if (match === null) return null;
  const port = Number(match[2]);
  if (port < 1 || port > 65_535) return null;
  let host = normaliseHost(match[1]!);
  const subdomains = host.startsWith('*.');
  if (subdomains) host = host.slice(2);
  if (host === '' || host.includes('*')) return null;
  return { host, port, subdomains };
}

/**
 * Reads the `allowNetwork` option. Throws {@link AgentStatechartError} `INVALID_OPTION` naming the
 * first entry that is not `host:port`.
 *
 * @example
 * parseAllowedHosts(['registry.npmjs.org:443', '127.0.0.1:5432']);
 */
export function parseAllowedHosts(entries: readonly string[]): AllowedHost[] {
  if (!Array.isArray(entries)) {
    throw new AgentStatechartError(
      'INVALID_OPTION',
      `allowNetwork must be an array of 'host:port' strings`,
    );
  }
  return entries.map((entry) => {
    const parsed = typeof entry === 'string' ? parseHostPort(entry) : null;
    if (parsed === null) {
      throw new AgentStatechartError(
        'INVALID_OPTION',
        `allowNetwork entry ${JSON.stringify(entry)} is not 'host:port'; write for example 'registry.npmjs.org:443', '[::1]:8080' or '*.github.com:443'`,
      );
    }
    return parsed;
  });
}

/**
 * Whether a connection to `host:port` is allowed. Names compare exactly (case and one trailing dot
 * aside): another spelling of an allowed address is refused, never the other way round.
 *
 * @example
 * isAllowedHost(parseAllowedHosts(['*.github.com:443']), 'api.github.com', 443); // true
 */
export function isAllowedHost(
  allowed: readonly AllowedHost[],
  host: string,
  port: number,
): boolean {
  const wanted = normaliseHost(host);
  return allowed.some(
    (entry) =>
      entry.port === port &&
      (entry.subdomains ? wanted.endsWith(`.${entry.host}`) : wanted === entry.host),
  );
}

function normaliseHost(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return bare.toLowerCase().replace(/\.$/, '');
}
