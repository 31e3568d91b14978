/**
 * The package whose durable turn the persistence table measures: this checkout's build (`ours`),
 * and with `--baseline` the build of the baseline commit (`oursBase`) beside it. The turn, the
 * history it is recorded on and the way it is timed are the same code for both; only the
 * package they call differs, each from its own session files (a baseline may store sessions in
 * another layout).
 */
import type * as Package from '../../src/index.js';
import { activeBaseline, loadBaselinePackage } from '../baseline/baselinePackage.js';

/** What the durable turn, its history and its store call of the package. */
export const DURABLE_EXPORTS = [
  'SessionCore',
  'createSqliteSessionStore',
  'createMemorySessionStore',
  'CHART_VERSION',
] as const;
export type DurablePackage = Pick<typeof Package, (typeof DURABLE_EXPORTS)[number]>;

/** A build of the package that does durable turns; `kind` names its cases and template files. */
export interface DurableSubject {
  kind: 'ours' | 'oursBase';
  /** Imports the build (in the process that measures it, not before). */
  load(): Promise<DurablePackage>;
}

export const OURS: DurableSubject = { kind: 'ours', load: () => import('../../src/index.js') };

/** Ours, and the baseline's when the run has one. */
export function durableSubjects(): DurableSubject[] {
  if (activeBaseline() === undefined) return [OURS];
  const baseline: DurableSubject = {
    kind: 'oursBase',
    load: () => loadBaselinePackage(DURABLE_EXPORTS, "the persistence table's durable turn"),
  };
  return [OURS, baseline];
}
