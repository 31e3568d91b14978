/**
 * The package as it was at the baseline commit (`npm run bench -- --baseline=<git ref>`), for
 * the subjects that measure it beside the current one. `run.ts` builds it (buildBaseline.ts) and
 * names it in an environment variable; every process the bench starts inherits the variable, and
 * a baseline subject imports the build from there, after checking that it exports what the
 * subject's code (shared with the current subject) calls.
 */
import { pathToFileURL } from 'node:url';
import type * as Package from '../../src/index.js';

/** A compiled baseline: which commit, and where its entry is. */
export interface BaselineBuild {
  /** The ref as given to `--baseline`. */
  ref: string;
  /** The full hash of the commit it names. */
  commit: string;
  /** The first line of the commit's message. */
  title: string;
  /** When the commit was made (ISO 8601). */
  committedAt: string;
  /** The compiled `src/index.js` of that commit. */
  entry: string;
}

const BASELINE_VARIABLE = 'AGENT_STATECHART_BENCH_BASELINE';

/** Makes `build` the baseline of this process and of every process it starts. */
export function useBaseline(build: BaselineBuild): void {
  process.env[BASELINE_VARIABLE] = JSON.stringify(build);
}

/** The baseline `run.ts` set, if the run has one. */
export function activeBaseline(): BaselineBuild | undefined {
  const value = process.env[BASELINE_VARIABLE];
  return value === undefined ? undefined : (JSON.parse(value) as BaselineBuild);
}

/** The longest commit title printed (this repository's titles are often a long sentence). */
const TITLE_LENGTH = 80;

/**
 * The commit, short, with the ref it was asked for by and its title, shortened:
 * `1a2b3c4d5e6f (HEAD~3) "Bench: …"`.
 */
export function describeBaseline(build: BaselineBuild): string {
  const title =
    build.title.length > TITLE_LENGTH ? `${build.title.slice(0, TITLE_LENGTH - 1)}…` : build.title;
  return `${build.commit.slice(0, 12)} (${build.ref}) "${title}"`;
}

export type PackageExport = keyof typeof Package;

/** The names among `names` that `module` does not export. */
export function missingExports(module: object, names: readonly string[]): string[] {
  return names.filter((name) => !(name in module));
}

/**
 * Imports the baseline build and returns it as the exports `names` that `user` calls; fails with
 * a message that says which are missing when the baseline's public API predates one of them.
 */
export async function loadBaselinePackage<Name extends PackageExport>(
  names: readonly Name[],
  user: string,
): Promise<Pick<typeof Package, Name>> {
  const build = activeBaseline();
  if (build === undefined) {
    throw new Error(`${user} measures a baseline build: run the bench with --baseline=<git ref>`);
  }
  let module: object;
  try {
    module = (await import(pathToFileURL(build.entry).href)) as object;
  } catch (error) {
    throw new Error(
      `the baseline build of ${describeBaseline(build)} does not load from ${build.entry}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const missing = missingExports(module, names);
  if (missing.length > 0) {
    throw new Error(
      `the baseline ${describeBaseline(build)} does not export ${missing.join(', ')}, which ${user} calls; choose a later --baseline, or leave out that part (--no-density, --no-persistence)`,
    );
  }
  return module as Pick<typeof Package, Name>;
}
