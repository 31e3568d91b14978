/**
 * Whether stored idle sessions cost heap: fresh processes each hold a host over a session file
 * (bench/persistence/idleHost.ts) after loading the same number of its sessions and letting them
 * go idle and leave memory, alternately over a file of a few sessions and one of many, and
 * report their heap; a host (or store) that kept something per stored or per evicted session
 * would grow with the file.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface IdleHeapSample {
  sessions: number;
  heapUsed: number;
  rss: number;
  listed: number;
  /** Sessions loaded, then evicted, before the heap was read. */
  touched: number;
}

/**
 * `rounds` samples of each file, alternating; `files` maps a session count to its file; each
 * process first loads and evicts `touched` sessions.
 */
export async function measureIdleHeap(
  hostScript: string,
  files: ReadonlyArray<{ sessions: number; path: string }>,
  rounds: number,
  touched: number,
): Promise<IdleHeapSample[]> {
  const samples: IdleHeapSample[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const { sessions, path } of round % 2 === 0 ? files : [...files].reverse()) {
      const { stdout } = await run(process.execPath, [
        ...process.execArgv,
        '--expose-gc',
        hostScript,
        path,
        String(touched),
      ]);
      const result = JSON.parse(stdout) as Omit<IdleHeapSample, 'sessions'> & {
        live: number;
        loadedMessages: number;
      };
      if (result.live !== 0) throw new Error('idle host: a session stayed in memory');
      if (result.touched !== touched || result.loadedMessages !== touched * 2) {
        throw new Error(`idle host: expected ${touched} sessions of 2 messages loaded`);
      }
      samples.push({
        sessions,
        heapUsed: result.heapUsed,
        rss: result.rss,
        listed: result.listed,
        touched: result.touched,
      });
    }
  }
  return samples;
}
