/**
 * Where a measured process spent its CPU: reads V8 CPU profiles (`npm run bench -- --cpu-prof`)
 * and prints the self time per part of the stack — the SDK, Node's fetch and web streams,
 * XState, each folder of the package, LangChain, the garbage collector — and the hottest
 * functions.
 *
 *     npx tsx bench/profileSummary.ts bench/.cpu-prof/*.cpuprofile
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The part of the stack a function belongs to, from its script's URL. */
function partOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const rules: Array<[RegExp, string]> = [
    // The bench runs the package compiled into node_modules/.cache/agent-statechart-bench/.
    [/agent-statechart-bench\/src\/([^/]+)\//, 'src/$1'],
    [/agent-statechart-bench\/bench\//, 'bench'],
    [
      /node_modules\/@langchain\/anthropic\/node_modules\/@anthropic-ai\/sdk\//,
      'SDK 0.x (LangChain)',
    ],
    [/node_modules\/@anthropic-ai\/sdk\//, '@anthropic-ai/sdk'],
    [/node_modules\/xstate\//, 'xstate'],
    [/node_modules\/@langchain\/langgraph/, 'LangGraph.js'],
    [/node_modules\/@langchain\//, 'LangChain'],
    [/node_modules\/zod\//, 'zod'],
    [/node_modules\/([^/]+)\//, 'other packages'],
    [/^node:internal\/deps\/undici/, "Node's fetch (undici)"],
    [/^node:internal\/webstreams/, "Node's web streams"],
    [/^node:/, 'Node (other)'],
  ];
  for (const [pattern, name] of rules) {
    const match = pattern.exec(url);
    if (match !== null) return name.replace('$1', match[1] ?? '');
  }
  return url;
}

function summarise(path: string): string[] {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parts = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const micros = profile.timeDeltas[index] ?? 0;
    if (node === undefined || node.callFrame.functionName === '(idle)') return;
    total += micros;
    const { functionName, url, lineNumber } = node.callFrame;
    const part = partOf(url, functionName);
    parts.set(part, (parts.get(part) ?? 0) + micros);
    const name = `${functionName || '(anonymous)'}  ${basename(url) || part}:${lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + micros);
  });
  const share = (micros: number) => `${((micros / total) * 100).toFixed(1).padStart(5)}%`;
  const top = (map: Map<string, number>, count: number) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, count);
  return [
    `${basename(path)}: ${(total / 1e6).toFixed(2)} s of samples, not idle`,
    ...top(parts, 16).map(([part, micros]) => `  ${share(micros)}  ${part}`),
    '  hottest functions (self time):',
    ...top(functions, 12).map(([name, micros]) => `  ${share(micros)}  ${name}`),
    '',
  ];
}

const paths = process.argv.slice(2);
if (paths.length === 0) {
  process.stderr.write('usage: npx tsx bench/profileSummary.ts <file.cpuprofile>…\n');
  process.exitCode = 1;
}
for (const path of paths) process.stdout.write(`${summarise(path).join('\n')}\n`);
