/**
 * Where the persistence phase keeps its session files: templates written once by the phase
 * process (a history of n messages under every session or thread a sample needs), and a fresh
 * copy of a template for every sample, so each timed turn starts from exactly n messages on a
 * file no other sample wrote to. The phase's child processes find the folder through an
 * environment variable the phase process sets before starting them.
 */
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FOLDER_VARIABLE = 'AGENT_STATECHART_BENCH_PERSISTENCE_DIR';

/** The folder, as the phase process set it. */
export function sessionFolder(): string {
  const folder = process.env[FOLDER_VARIABLE];
  if (folder === undefined) throw new Error(`${FOLDER_VARIABLE} is not set`);
  return folder;
}

/** Makes `folder` the one this process and the processes it starts use. */
export function useSessionFolder(folder: string): void {
  process.env[FOLDER_VARIABLE] = folder;
}

/**
 * The templates: ours (and the baseline build's) for durable turns, LangGraph.js's, one session
 * to resume; and, of a compacted history, ours for durable turns and one session to resume.
 */
export type TemplateKind =
  'ours' | 'oursBase' | 'langGraph' | 'resume' | 'oursCompacted' | 'resumeCompacted';

export function templatePath(kind: TemplateKind, n: number): string {
  return join(sessionFolder(), `${kind}-${n}.db`);
}

/**
 * How many messages the transcript of the compacted history of n messages holds, noted by the
 * phase process when it writes the templates, for the processes that check a sample's work.
 */
export function noteCompactedLength(n: number, messages: number): void {
  writeFileSync(join(sessionFolder(), `compacted-${n}.json`), JSON.stringify({ messages }));
}

export function compactedLength(n: number): number {
  const text = readFileSync(join(sessionFolder(), `compacted-${n}.json`), 'utf8');
  return (JSON.parse(text) as { messages: number }).messages;
}

let copies = 0;

/** A fresh copy of a template; `remove` deletes it with its WAL and shared-memory files. */
export function copyOf(template: string): { path: string; remove: () => void } {
  const path = join(sessionFolder(), `sample-${process.pid}-${++copies}.db`);
  copyFileSync(template, path);
  return { path, remove: () => removeDatabase(path) };
}

/** Deletes a SQLite file and the WAL and shared-memory files beside it. */
export function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true });
}
