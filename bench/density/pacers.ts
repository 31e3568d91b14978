/**
 * Starts pacing servers (bench/pacer/pacingServer.ts, compiled) as child processes and stops
 * them: each is a process of its own, so the streams it serves cost the measured process nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A running pacing server. */
export interface Pacer {
  readonly baseURL: string;
  readonly eventDelayMs: number;
  stop(): Promise<void>;
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    const onExit = (code: number | null) =>
      reject(new Error(`the pacing server exited with ${code} before it was ready`));
    child.once('exit', onExit);
    child.once('error', reject);
    lines.once('line', (line) => {
      child.off('exit', onExit);
      lines.close();
      resolve(line.trim());
    });
  });
}

/** Starts the compiled pacing server at `script` with `eventDelayMs` between SSE events. */
export async function startPacer(script: string, eventDelayMs: number): Promise<Pacer> {
  const child = spawn(process.execPath, [script, `--event-delay-ms=${eventDelayMs}`], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const baseURL = await firstLine(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    baseURL,
    eventDelayMs,
    stop() {
      // The server stops when its stdin closes (and on SIGTERM, should the parent die first).
      child.stdin?.end();
      return exited;
    },
  };
}
