/**
 * Whether stored idle sessions cost heap: fresh processes each hold a host over a session file
 * (bench/persistence/idleHost.ts), alternately over a file of a few sessions and one of many,
 * and report their heap; a host that kept something per stored session would grow with the
 * file.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface IdleHeapSample {
  sessions: number;
  heapUsed: number;
  rss: number;
  listed: number;
}

/** `rounds` samples of each file, alternating; `files` maps a session count to its file. */
export async function measureIdleHeap(
  hostScript: string,
  files: ReadonlyArray<{ sessions: number; path: string }>,
  rounds: number,
): Promise<IdleHeapSample[]> {
  const samples: IdleHeapSample[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const { sessions, path } of round % 2 === 0 ? files : [...files].reverse()) {
      const { stdout } = await run(process.execPath, [
        ...process.execArgv,
        '--expose-gc',
        hostScript,
        path,
      ]);
      const result = JSON.parse(stdout) as Omit<IdleHeapSample, 'sessions'> & { live: number };
      if (result.live !== 0) throw new Error('idle host: a session was loaded');
      samples.push({ sessions, heapUsed: result.heapUsed, rss: result.rss, listed: result.listed });
    }
  }
  return samples;
}
