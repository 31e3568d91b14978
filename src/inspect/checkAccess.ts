/**
 * Who may read the inspector. It shows whole conversations, so by default only this machine can
 * reach it, and a token guards it whenever it listens further away.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from './bindPolicy.js';

/**
 * What {@link checkAccess} needs to know about the server.
 *
 * @example
 * const settings: AccessSettings = { token: undefined, loopbackOnly: true };
 */
export interface AccessSettings {
  /** Required on every request when set (`?token=` or `Authorization: Bearer`). */
  token: string | undefined;
  /** The server listens on loopback only, so a foreign `Host` header means DNS rebinding. */
  loopbackOnly: boolean;
}

/**
 * The verdict on one request: allowed, or the status and message to answer with.
 *
 * @example
 * const decision: AccessDecision = { allowed: false, status: 401, message: 'missing or wrong token' };
 */
export type AccessDecision =
  { allowed: true } | { allowed: false; status: 401 | 403; message: string };

/**
 * Decides whether a request may read the inspector.
 *
 * - On a loopback-only server the `Host` header must name loopback too: a web page elsewhere can
 *   point its own domain at 127.0.0.1 (DNS rebinding), but cannot make the browser send
 *   `Host: 127.0.0.1`.
 * - With a token, the request must carry it, compared in constant time.
 *
 * @example
 * const decision = checkAccess(request, { token: 's3cret', loopbackOnly: false });
 * if (!decision.allowed) response.writeHead(decision.status).end(decision.message);
 */
export function checkAccess(request: IncomingMessage, settings: AccessSettings): AccessDecision {
  if (settings.loopbackOnly) {
    const hostname = hostnameOf(request.headers.host ?? '');
    if (!isLoopbackHost(hostname)) {
      return {
        allowed: false,
        status: 403,
        message: `the inspector answers only requests addressed to this machine (Host: ${hostname || 'none'})`,
      };
    }
  }
  if (settings.token === undefined) return { allowed: true };
  const offered = offeredToken(request);
  if (offered !== undefined && sameSecret(offered, settings.token)) return { allowed: true };
  return {
    allowed: false,
    status: 401,
    message: 'this inspector needs its token: open the URL it printed (it ends in ?token=…)',
  };
}

function hostnameOf(hostHeader: string): string {
  // `[::1]:4000` → `[::1]`; `localhost:4000` → `localhost`.
  const match = /^(\[[^\]]*\]|[^:]*)(?::\d+)?$/.exec(hostHeader.trim());
  return match?.[1] ?? '';
}

function offeredToken(request: IncomingMessage): string | undefined {
  const authorization = request.headers.authorization;
  if (authorization?.startsWith('Bearer ')) return authorization.slice('Bearer '.length).trim();
  const query = new URL(request.url ?? '/', 'http://inspector.invalid').searchParams.get('token');
  return query ?? undefined;
}

/** Constant-time comparison; hashing first makes the lengths equal without leaking them. */
function sameSecret(offered: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(offered), digest(expected));
}
