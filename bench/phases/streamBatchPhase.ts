/**
 * How many deltas a fast stream delivers per I/O tick — the batch the delta figures assume. The
 * real path end to end: the local Messages API server (own process, no pacing) streams a 4,000
 * delta reply; the real `createLlmActor` reads it with the real Anthropic SDK and batches it with
 * the real `DeltaCoalescer` (its default `setImmediate` scheduler, wrapped to count flushes);
 * the machine emits one `DisplayMessage` per batch. A remote model streaming at its own pace
 * delivers about one delta per read instead: that is the worst case the delta phase also reports.
 */
import { spawn } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import { createActor } from 'xstate';
import { agentMachine, createLlmActor } from '../../src/index.js';
import { stats } from '../measure.js';
import { figure, type Figure } from '../report/figures.js';
import { ActorHandles, benchActors } from '../subjects/benchActors.js';
import { finishPhase, phaseSettings, progress } from './phaseIo.js';

const settings = phaseSettings();
const DELTAS = 4000;
const server = spawn(
  process.execPath,
  [
    ...process.execArgv,
    // A sibling of this file: .ts under tsx, .js in the compiled bench `npm run bench` runs.
    fileURLToPath(new URL(`./streamServer${extname(import.meta.url)}`, import.meta.url)),
  ],
  { stdio: ['ignore', 'pipe', 'inherit'] },
);
const baseURL = await new Promise<string>((resolve, reject) => {
  server.once('error', reject);
  server.stdout.once('data', (data: Buffer) => resolve(data.toString().trim()));
});

const client = new Anthropic({ apiKey: 'bench', baseURL, maxRetries: 0 });
const batchMeans: number[] = [];
const batchMedians: number[] = [];
const wallPerDelta: number[] = [];
const streams = settings.quick ? 2 : 5;
try {
  for (let stream = 0; stream < streams + 1; stream++) {
    const llm = createLlmActor({ client });
    const others = benchActors(new ActorHandles());
    const actor = createActor(agentMachine.provide({ actors: { ...others, llm } }), {
      input: { config: {} },
    });
    const batches: number[] = [];
    actor.on('DisplayMessage', ({ text }) => batches.push(text.length / 4));
    const idle = new Promise<void>((resolve) => {
      actor.subscribe((snapshot) => {
        if (snapshot.value === 'WaitingForUserInput' && batches.length > 0) resolve();
      });
    });
    actor.start();
    const started = process.hrtime.bigint();
    actor.send({ type: 'UserInput', message: { role: 'user', content: 'Stream a long answer.' } });
    await idle;
    const wall = Number(process.hrtime.bigint() - started);
    actor.stop();
    const received = batches.reduce((sum, size) => sum + size, 0);
    if (received !== DELTAS) throw new Error(`expected ${DELTAS} deltas, got ${received}`);
    if (stream === 0) continue; // warm-up: the SDK's first request pays for its own set-up
    batchMeans.push(DELTAS / batches.length);
    batchMedians.push(stats(batches).median);
    wallPerDelta.push(wall / DELTAS);
    progress(
      'stream',
      `stream ${stream}: ${batches.length} ticks, mean ${(DELTAS / batches.length).toFixed(0)} deltas per tick`,
    );
  }
} finally {
  server.kill();
}

const figures: Figure[] = [
  figure(
    'streamBatch',
    'deltas per tick, mean per stream (local server, unpaced)',
    0,
    'count',
    batchMeans,
  ),
  figure('streamBatch', 'deltas per tick, median tick per stream', 0, 'count', batchMedians),
  figure(
    'streamBatch',
    'wall time per delta, SDK parse to listener (for scale)',
    0,
    'ns',
    wallPerDelta,
  ),
];
finishPhase({ phase: 'stream', figures, extra: { deltasPerStream: DELTAS, streams } });
