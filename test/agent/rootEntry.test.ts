/**
 * The root entry stays light: an agent without an inspector page never loads `node:http` or the
 * page's assets (the page's server is loaded inside `createInspectorServer`, when a page is asked
 * for), and recording an agent for the inspector loads neither.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);

async function builtinsLoadedBy(script: string): Promise<string[]> {
  const { stdout } = await run(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', script],
    { cwd: process.cwd() },
  );
  return JSON.parse(stdout) as string[];
}

const LIST_HTTP = `console.log(JSON.stringify(process.moduleLoadList.filter((m) => /^NativeModule (http|_http_server)$/.test(m))))`;

describe('the root entry', () => {
  it('creates an agent without loading node:http', async () => {
    const loaded = await builtinsLoadedBy(
      `const { createAgent } = await import('./src/index.ts');
       const agent = createAgent({ autoCommit: false });
       await agent.shutdown();
       ${LIST_HTTP}`,
    );
    expect(loaded).toEqual([]);
  });

  it('records for the inspector without loading node:http, through the inspect entry too', async () => {
    const loaded = await builtinsLoadedBy(
      `const { createAgent } = await import('./src/index.ts');
       const { InspectionRecorder } = await import('./src/inspect/index.ts');
       const recorder = new InspectionRecorder();
       const agent = createAgent({ autoCommit: false, inspect: recorder.observe({ name: 'a' }) });
       await agent.shutdown();
       if (recorder.agents().length !== 1) throw new Error('nothing was recorded');
       ${LIST_HTTP}`,
    );
    expect(loaded).toEqual([]);
  });

  it('loads it once an inspector page is asked for', async () => {
    const loaded = await builtinsLoadedBy(
      `const { createAgent } = await import('./src/index.ts');
       const agent = createAgent({ autoCommit: false, inspector: {} });
       await agent.inspector.ready;
       await agent.shutdown();
       ${LIST_HTTP}`,
    );
    expect(loaded).toContain('NativeModule http');
  });
});
