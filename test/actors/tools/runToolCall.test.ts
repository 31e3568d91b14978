import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { createToolRegistry } from '../../../src/actors/tools/createToolRegistry.js';
import { defineTool, type ToolContext } from '../../../src/actors/tools/defineTool.js';
import { runToolCall } from '../../../src/actors/tools/runToolCall.js';
import { toolContent } from '../../../src/actors/tools/toolContent.js';
import { errorMessage } from './outcomes.js';

const workspace = process.cwd();

function tool(
  name: string,
  execute: (input: unknown, ctx: ToolContext) => unknown,
  timeoutMs?: number,
) {
  return defineTool({
    name,
    description: `test tool ${name}`,
    input: z.looseObject({}),
    mutating: false,
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
    execute,
  });
}

/** Resolves once the signal aborts, so a test can wait for it without sleeping. */
function aborted(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    else signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

describe('runToolCall', () => {
  it('returns a string result unchanged as a success outcome', async () => {
    const registry = createToolRegistry([tool('hello', () => 'hi there')]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'hello', input: {} },
      { workspace },
    );
    expect(outcome).toEqual({ status: 'success', output: 'hi there' });
  });

  it('returns a JSON value as plain JSON data', async () => {
    const registry = createToolRegistry([
      tool('data', () => ({ when: new Date(0), count: 2, nested: [1, 'a'] })),
    ]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'data', input: {} },
      { workspace },
    );
    expect(outcome).toEqual({
      status: 'success',
      output: { when: '1970-01-01T00:00:00.000Z', count: 2, nested: [1, 'a'] },
    });
  });

  it('passes the parsed input and a context with workspace, call id and signal to the tool', async () => {
    const seen: Array<{ input: unknown; workspace: string; callId: string; aborted: boolean }> = [];
    const registry = createToolRegistry([
      tool('spy', (input, ctx) => {
        seen.push({
          input,
          workspace: ctx.workspace,
          callId: ctx.callId,
          aborted: ctx.signal.aborted,
        });
        return 'ok';
      }),
    ]);
    await runToolCall(
      registry,
      { id: 'toolu_9', name: 'spy', input: { a: 1 } },
      { workspace: '.' },
    );
    expect(seen).toEqual([{ input: { a: 1 }, workspace, callId: 'toolu_9', aborted: false }]);
  });

  it('names the available tools when the model calls an unknown one', async () => {
    const registry = createToolRegistry([tool('read_file', () => ''), tool('bash', () => '')]);
    const outcome = await runToolCall(registry, { id: 't1', name: 'x', input: {} }, { workspace });
    expect(errorMessage(outcome)).toBe("unknown tool 'x'; available: read_file, bash");
  });

  it('names each failing input path and why, so the model can fix its call', async () => {
    const registry = createToolRegistry([
      defineTool({
        name: 'strict',
        description: 'Needs a path and positive count',
        input: z.object({
          path: z.string(),
          count: z.number().positive(),
          tags: z.array(z.string()),
        }),
        mutating: false,
        execute: () => 'never',
      }),
    ]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'strict', input: { count: -1, tags: ['ok', 3] } },
      { workspace },
    );
    const message = errorMessage(outcome);
    expect(message).toContain("invalid input for tool 'strict'");
    expect(message).toMatch(/- path: .*expected string, received undefined/);
    expect(message).toMatch(/- count: .*>0/);
    expect(message).toMatch(/- tags\[1\]: .*expected string, received number/);
  });

  it('reports input that is not an object at all as an (input) problem', async () => {
    const registry = createToolRegistry([tool('t', () => 'never')]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 't', input: 'oops' },
      { workspace },
    );
    expect(errorMessage(outcome)).toMatch(/- \(input\): .*expected object/);
  });

  it('turns a tool that throws, asynchronously or not, into an error outcome with its message', async () => {
    const registry = createToolRegistry([
      tool('async_fail', async () => {
        throw new Error('disk on fire');
      }),
      tool('sync_fail', () => {
        throw new Error('bad luck');
      }),
      tool('throws_string', () => {
        throw 'plain string';
      }),
    ]);
    const run = (name: string) =>
      runToolCall(registry, { id: 't', name, input: {} }, { workspace });
    expect(errorMessage(await run('async_fail'))).toBe('disk on fire');
    expect(errorMessage(await run('sync_fail'))).toBe('bad luck');
    expect(errorMessage(await run('throws_string'))).toBe('plain string');
  });

  it('times out a hanging tool with "timed out after N ms" and aborts its signal', async () => {
    let toolSignal: AbortSignal | undefined;
    const registry = createToolRegistry([
      tool('hang', (_input, ctx) => {
        toolSignal = ctx.signal;
        return new Promise(() => {});
      }),
    ]);
    const started = Date.now();
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'hang', input: {} },
      { workspace, timeoutMs: 50 },
    );
    expect(errorMessage(outcome)).toBe('timed out after 50 ms');
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(toolSignal?.aborted).toBe(true);
    expect((toolSignal?.reason as Error | undefined)?.name).toBe('TimeoutError');
  });

  it("uses the tool's own timeout when the caller gives none", async () => {
    const registry = createToolRegistry([tool('slow', () => new Promise(() => {}), 40)]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'slow', input: {} },
      { workspace },
    );
    expect(errorMessage(outcome)).toBe('timed out after 40 ms');
  });

  it("aborts the tool's signal when the caller aborts, and reports how the tool really ended", async () => {
    const stops = async (finishAnyway: boolean) => {
      const controller = new AbortController();
      let toolSignal: AbortSignal | undefined;
      const registry = createToolRegistry([
        tool('wait', async (_input, ctx) => {
          toolSignal = ctx.signal;
          setTimeout(() => controller.abort(), 10);
          await aborted(ctx.signal);
          if (finishAnyway) return 'finished anyway';
          throw new Error('stopped on its signal');
        }),
      ]);
      const outcome = await runToolCall(
        registry,
        { id: 't1', name: 'wait', input: {} },
        { workspace, signal: controller.signal },
      );
      expect(toolSignal?.aborted).toBe(true);
      return outcome;
    };
    expect(await stops(true)).toEqual({ status: 'success', output: 'finished anyway' });
    expect(errorMessage(await stops(false))).toBe('stopped on its signal');
  });

  it('does not start the tool when the caller already aborted', async () => {
    let started = false;
    const registry = createToolRegistry([
      tool('never', () => {
        started = true;
        return 'ran';
      }),
    ]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'never', input: {} },
      { workspace, signal: AbortSignal.abort() },
    );
    expect(errorMessage(outcome)).toBe('cancelled before it started');
    expect(started).toBe(false);
  });

  it('ignores a result and progress that arrive after the timeout', async () => {
    const progress: unknown[] = [];
    let lateDelivered!: () => void;
    const late = new Promise<void>((resolve) => {
      lateDelivered = resolve;
    });
    const registry = createToolRegistry([
      tool('late', async (_input, ctx) => {
        ctx.reportProgress('early');
        await aborted(ctx.signal);
        ctx.reportProgress('too late');
        setTimeout(lateDelivered, 0);
        return 'late result';
      }),
    ]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'late', input: {} },
      { workspace, timeoutMs: 20, onProgress: (value) => progress.push(value) },
    );
    await late;
    expect(errorMessage(outcome)).toBe('timed out after 20 ms');
    expect(progress).toEqual(['early']);
  });

  it('forwards progress, and survives a listener that throws', async () => {
    const progress: unknown[] = [];
    const registry = createToolRegistry([
      tool('chatty', (_input, ctx) => {
        ctx.reportProgress({ step: 1 });
        ctx.reportProgress({ step: 2 });
        return 'done';
      }),
    ]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'chatty', input: {} },
      {
        workspace,
        onProgress: (value) => {
          progress.push(value);
          throw new Error('listener broke');
        },
      },
    );
    expect(outcome).toEqual({ status: 'success', output: 'done' });
    expect(progress).toEqual([{ step: 1 }, { step: 2 }]);
  });

  it('forwards progress as plain JSON data and drops, with the reason, what JSON cannot hold', async () => {
    const progress: unknown[] = [];
    const refused: Array<{ problem: string; progress: unknown }> = [];
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const bytes = { bytes: 1024n };
    const registry = createToolRegistry([
      tool('reporter', (_input, ctx) => {
        ctx.reportProgress({ at: new Date(0), bytes: 10 });
        ctx.reportProgress(bytes);
        ctx.reportProgress(circular);
        ctx.reportProgress(
          new Proxy(
            {},
            {
              ownKeys: () => {
                throw new Error('no keys');
              },
            },
          ),
        );
        ctx.reportProgress(undefined);
        ctx.reportProgress('half way');
        return 'done';
      }),
    ]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'reporter', input: {} },
      {
        workspace,
        onProgress: (value) => progress.push(value),
        onProgressRefused: (problem, value) => refused.push({ problem, progress: value }),
      },
    );
    expect(outcome).toEqual({ status: 'success', output: 'done' });
    expect(progress).toEqual([
      { at: '1970-01-01T00:00:00.000Z', bytes: 10 },
      undefined,
      'half way',
    ]);
    expect(refused.map((entry) => entry.problem)).toEqual([
      'progress is not JSON-serialisable (Do not know how to serialize a BigInt)',
      expect.stringMatching(/^progress is not JSON-serialisable \(.*circular/i) as string,
      'progress is not JSON-serialisable (no keys)',
    ]);
    expect(refused[0]?.progress).toBe(bytes);
  });

  it('turns a result that is not JSON-serialisable into an error naming the tool', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    const registry = createToolRegistry([
      tool('circular', () => circular),
      tool('bigint', () => 10n),
      tool('fn', () => () => 1),
    ]);
    for (const name of ['circular', 'bigint', 'fn']) {
      const outcome = await runToolCall(registry, { id: 't', name, input: {} }, { workspace });
      expect(errorMessage(outcome)).toContain(
        `tool '${name}' returned a value that is not JSON-serialisable`,
      );
    }
  });

  it('puts the paths a tool reports changing on its success, workspace-relative, each once', async () => {
    const registry = createToolRegistry([
      tool('touch', (_input, ctx) => {
        ctx.reportChangedPaths(['a.txt', './a.txt', 'dir/../b.txt', 'sub\u005cc.txt']);
        ctx.reportChangedPaths([
          `${ctx.workspace}/sub/d.txt`,
          '../outside.txt',
          '/etc/passwd',
          '.',
        ]);
        return 'touched';
      }),
    ]);
    const outcome = await runToolCall(
      registry,
      { id: 't1', name: 'touch', input: {} },
      { workspace },
    );
    expect(outcome).toEqual({
      status: 'success',
      output: 'touched',
      changedPaths: ['a.txt', 'b.txt', 'sub\u005cc.txt', 'sub/d.txt'],
    });
  });

  it('leaves changed paths off a failure and off a success that reported none', async () => {
    const registry = createToolRegistry([
      tool('fails', (_input, ctx) => {
        ctx.reportChangedPaths(['a.txt']);
        throw new Error('half done');
      }),
      tool('quiet', (_input, ctx) => {
        ctx.reportChangedPaths([]);
        return 'ok';
      }),
    ]);
    expect(
      await runToolCall(registry, { id: 't1', name: 'fails', input: {} }, { workspace }),
    ).toEqual({ status: 'error', error: { message: 'half done' } });
    expect(
      await runToolCall(registry, { id: 't2', name: 'quiet', input: {} }, { workspace }),
    ).toEqual({ status: 'success', output: 'ok' });
  });

  it('returns blocks made by toolContent as content, and refuses blocks JSON or the API cannot take', async () => {
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/gif' as const, data: 'R0lGODlh' },
    };
    const registry = createToolRegistry([
      tool('shows', () => toolContent({ type: 'text', text: 'a gif' }, image)),
      tool('untyped', () => toolContent({ text: 'no type' } as never)),
      tool('big', () => toolContent({ type: 'text', text: 'n', n: 1n })),
    ]);
    const run = (name: string) =>
      runToolCall(registry, { id: 't1', name, input: {} }, { workspace });
    expect(await run('shows')).toEqual({
      status: 'success',
      content: [{ type: 'text', text: 'a gif' }, image],
    });
    expect(errorMessage(await run('untyped'))).toBe(
      "tool 'untyped' returned content whose block 0 has no type; each block is { type: 'text' | 'image' | 'document' | …, … }",
    );
    expect(errorMessage(await run('big'))).toMatch(
      /^tool 'big' returned content that is not JSON-serialisable/,
    );
  });

  it('turns undefined into an empty string', async () => {
    const registry = createToolRegistry([tool('quiet', () => undefined)]);
    const outcome = await runToolCall(
      registry,
      { id: 't', name: 'quiet', input: {} },
      { workspace },
    );
    expect(outcome).toEqual({ status: 'success', output: '' });
  });

  it('validates with async refinements, reporting their message', async () => {
    const registry = createToolRegistry([
      defineTool({
        name: 'async_check',
        description: 'Schema with an async refinement',
        input: z.object({ n: z.number() }).refine(async ({ n }) => n % 2 === 0, {
          message: 'n must be even',
          path: ['n'],
        }),
        mutating: false,
        execute: ({ n }) => `got ${n}`,
      }),
    ]);
    const run = (n: number) =>
      runToolCall(registry, { id: 't', name: 'async_check', input: { n } }, { workspace });
    expect(await run(2)).toEqual({ status: 'success', output: 'got 2' });
    expect(errorMessage(await run(3))).toContain('- n: n must be even');
  });

  it('never rejects, even when a schema refinement throws', async () => {
    const registry = createToolRegistry([
      defineTool({
        name: 'refine',
        description: 'Schema with a broken refinement',
        input: z.object({}).refine(() => {
          throw new Error('refinement exploded');
        }),
        mutating: false,
        execute: () => 'never',
      }),
    ]);
    const outcome = await runToolCall(
      registry,
      { id: 't', name: 'refine', input: {} },
      { workspace },
    );
    expect(errorMessage(outcome)).toBe('refinement exploded');
  });
});
