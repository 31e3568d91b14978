/**
 * Finding a test's commands among the host's processes, to show they were killed: each runs a
 * `sleep` of a duration no other process uses, and is looked up by its command line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Waits and bounds well inside the sleeps' 30 s: passing them shows a kill, not a command that
 * ended on its own, even on a machine loaded enough to take seconds to reap a process tree.
 */
export const GONE_WITHIN_MS = 10_000;
export const RETURNS_WITHIN_MS = 15_000;

/** A `sleep` no other process runs, so its host processes can be found by their command line. */
export function uniqueSleep(): string {
  return `sleep ${(30 + Math.random()).toFixed(9)}`;
}

/**
 * Host PIDs of live processes whose command line contains `marker` (or, with `at: 'start'`,
 * starts with it). Read from the host's /proc because a sandboxed command sees other PIDs (its
 * own PID namespace).
 */
export function processesWith(marker: string, at: 'anywhere' | 'start' = 'anywhere'): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      const matches =
        at === 'start' ? commandLine.startsWith(marker) : commandLine.includes(marker);
      // A killed process may linger as a zombie until its parent reaps it: it runs nothing.
      if (matches && state !== 'Z') found.push(Number(entry));
    } catch (error) {
      // The process ended while being read (ESRCH: between opening its file and reading it).
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ESRCH') throw error;
    }
  }
  return found;
}

/** Polls `condition` every 20 ms for up to `ms`; whether it came true. */
export async function until(condition: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await delay(20);
  }
  return condition();
}
