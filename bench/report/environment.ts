/** The machine and the code a run measured, for results.json and the printed header. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, freemem, loadavg, totalmem } from 'node:os';

export interface Environment {
  node: string;
  v8: string;
  cpu: string;
  cores: number;
  memoryGB: number;
  platform: string;
  versions: Record<string, string>;
  git: { commit: string; dirtySrc: string[] };
  loadAverageAtStart: number[];
  freeMemoryGBAtStart: number;
  startedAt: string;
}

function cpuModel(): string {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('model name'));
    if (line !== undefined) return line.split(':')[1]?.trim() ?? 'unknown';
  } catch {
    // Not Linux: fall back to what Node reports.
  }
  return cpus()[0]?.model ?? 'unknown';
}

function packageVersion(name: string): string {
  try {
    const url = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
    return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return '';
  }
}

export function captureEnvironment(): Environment {
  return {
    node: process.version,
    v8: process.versions.v8,
    cpu: cpuModel(),
    cores: cpus().length,
    memoryGB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    platform: `${process.platform} ${process.arch}`,
    versions: Object.fromEntries(
      [
        'xstate',
        '@anthropic-ai/sdk',
        '@langchain/langgraph',
        '@langchain/core',
        '@langchain/anthropic',
        'tsx',
      ].map((name) => [name, packageVersion(name)]),
    ),
    git: {
      commit: git(['rev-parse', '--short', 'HEAD']) || 'unknown',
      // Other work in progress in src/ changes what is measured: say so.
      dirtySrc: git(['status', '--porcelain', '--', 'src'])
        .split('\n')
        .filter((line) => line !== ''),
    },
    loadAverageAtStart: loadavg().map((value) => Math.round(value * 100) / 100),
    freeMemoryGBAtStart: Math.round((freemem() / 2 ** 30) * 10) / 10,
    startedAt: new Date().toISOString(),
  };
}
