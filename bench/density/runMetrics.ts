/**
 * What one measured run costs the process: CPU time (`process.cpuUsage`, user + system, V8's
 * helper threads included), wall time, peak resident memory (sampled) and event-loop delay
 * (`monitorEventLoopDelay`).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

/** The figures of one run, for the whole process. */
export interface RunMetrics {
  cpuMs: number;
  wallMs: number;
  /** Highest resident set size seen during the run. */
  peakRssBytes: number;
  /** Resident set size when the run started (agents built, garbage collected). */
  startRssBytes: number;
  /** How late the event loop ran a timer, beyond the timer's own interval: 99th percentile. */
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
}

/**
 * The loop-delay timer's interval. Node's histogram records the whole time between two runs of
 * its timer (the interval included), so the interval is subtracted from what is reported.
 */
const LOOP_RESOLUTION_MS = 1;
/** How often resident memory is sampled; `memoryUsage.rss()` is a cheap read of /proc. */
const RSS_SAMPLE_MS = 20;

/** Starts measuring; the returned function stops and returns the figures. */
export function startRunMetrics(): () => RunMetrics {
  const loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  const startRssBytes = process.memoryUsage.rss();
  let peakRssBytes = startRssBytes;
  const sampler = setInterval(() => {
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
  }, RSS_SAMPLE_MS);
  loop.enable();
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  return () => {
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    const used = process.cpuUsage(cpu);
    loop.disable();
    clearInterval(sampler);
    peakRssBytes = Math.max(peakRssBytes, process.memoryUsage.rss());
    const beyondInterval = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS);
    return {
      cpuMs: (used.user + used.system) / 1000,
      wallMs,
      peakRssBytes,
      startRssBytes,
      loopDelayP99Ms: beyondInterval(loop.percentile(99)),
      loopDelayMaxMs: beyondInterval(loop.max),
    };
  };
}
