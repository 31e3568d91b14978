/**
 * Reading an incoming HTTP request: its body as text, that text as JSON, its headers as one
 * string per name.
 */

import type { IncomingMessage } from 'node:http';

/**
 * The whole request body, decoded as UTF-8.
 *
 * @example
 * const raw = await readBody(req);
 */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/**
 * Parses JSON without throwing: the value, or why it is not JSON.
 *
 * @example
 * parseJson('{oops'); // { ok: false, problem: 'Expected property name …' }
 */
export function parseJson(
  raw: string,
): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch (error) {
    return {
      ok: false,
      problem: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * The request headers, names in lower case, a repeated header joined with `, `.
 *
 * @example
 * flattenHeaders(req)['anthropic-version']; // '2023-06-01'
 */
export function flattenHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}
