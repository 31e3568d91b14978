/**
 * The fingerprint of the chart a session log was recorded with. A log is replayed through the
 * chart, event by event, so a chart whose states, transitions, guards or actions changed could
 * read the same log differently; such a log is refused rather than silently misread.
 */
import { createHash } from 'node:crypto';
import { agentMachine } from '../machine/index.js';
import type { SessionHeader } from './sessionStore.js';

/** Bumped when what the log stores changes shape, independently of the chart. */
const LOG_FORMAT = 2;

/**
 * The version of this package, stored in the header of every session it creates, so a session
 * another version recorded can say which one. Written here rather than read from package.json at
 * run time, which a bundled or relocated copy of the package cannot find; a test keeps the two
 * equal.
 *
 * @example
 * PACKAGE_VERSION; // '0.1.0'
 */
export const PACKAGE_VERSION: string = '0.1.0';

/**
 * The current chart's fingerprint, stored in every session's header.
 *
 * @example
 * await store.create({ sessionId, chartVersion: CHART_VERSION, createdAt: Date.now() });
 */
export const CHART_VERSION: string = fingerprint();

function fingerprint(): string {
  const definition = JSON.stringify(agentMachine.definition, (_key, value: unknown) =>
    typeof value === 'function' ? `function ${value.name}` : value,
  );
  const digest = createHash('sha256').update(definition).digest('hex').slice(0, 16);
  return `${LOG_FORMAT}.${digest}`;
}

/**
 * The header of a session created now by this version of the package: the chart's fingerprint and
 * the package version, so a later version that cannot replay the log can say which one can.
 *
 * @example
 * await store.create(newSessionHeader('alice-1', Date.now(), { owner: 'alice' }));
 */
export function newSessionHeader(
  sessionId: string,
  createdAt: number,
  metadata?: Record<string, unknown>,
): SessionHeader {
  const header: SessionHeader = {
    sessionId,
    chartVersion: CHART_VERSION,
    packageVersion: PACKAGE_VERSION,
    createdAt,
  };
  if (metadata !== undefined) header.metadata = metadata;
  return header;
}
