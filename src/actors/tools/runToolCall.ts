import { isAbsolute, relative, resolve, sep } from 'node:path';
import {
  copyPlainJson,
  errorMessage,
  errorOutcome,
  type ToolCall,
  type ToolOutcome,
  type ToolResultContent,
} from '../../machine/index.js';
import type { ToolRegistry } from './createToolRegistry.js';
import { MAX_TIMEOUT_MS, type ToolContext } from './defineTool.js';
import { formatInputIssues } from './formatInputIssues.js';
import { contentOf } from './toolContent.js';

/**
 * How to run one tool call.
 *
 * @example
 * const options: RunToolCallOptions = { workspace: '/repo', signal: controller.signal, timeoutMs: 30_000 };
 */
export interface RunToolCallOptions {
  /** Workspace root handed to the tool (made absolute). */
  workspace: string;
  /** Aborting it aborts the tool's signal; the outcome is how the tool then ended. */
  signal?: AbortSignal;
  /** Overrides the tool's own timeout for this call, in milliseconds. */
  timeoutMs?: number;
  /**
   * Receives the tool's progress reports while the call runs, as the plain JSON data
   * `JSON.stringify` makes of them (so they can live in a stored snapshot). Errors it throws are
   * ignored.
   */
  onProgress?: (progress: unknown) => void;
  /**
   * Told about each progress report that was dropped because JSON cannot hold it (a BigInt, a
   * cycle, a getter that throws, …), with the reason and the report as the tool gave it.
   */
  onProgressRefused?: (problem: string, progress: unknown) => void;
}

/**
 * Runs one tool call of the model and says how it ended. Never throws or rejects: every failure is
 * an error outcome whose message the model reads and can act on.
 *
 * - unknown tool → `unknown tool 'x'; available: read_file, bash`
 * - input failing the schema → one line per failing field (see {@link formatInputIssues})
 * - the tool throws → its message
 * - the timeout passes → `timed out after N ms`, and the tool's signal is aborted
 * - the caller's signal aborts → the tool's signal is aborted, and the call ends the way the tool
 *   says: its result if it finished its work anyway, its error if it stopped (`cancelled before
 *   it started` when it never started)
 * - a result arriving after a timeout is ignored
 * - a string result passes through; blocks made by `toolContent` become the outcome's `content`;
 *   any other result must be JSON-serialisable and is returned as plain JSON data (`undefined`
 *   becomes `''`); progress reports too, and one that is not
 *   JSON-serialisable is dropped and handed to `onProgressRefused`
 * - the files the tool reported changing (`ctx.reportChangedPaths`) come with a success as
 *   `changedPaths`, relative to the workspace, each once
 *
 * @example
 * const outcome = await runToolCall(registry, { id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } }, {
 *   workspace: process.cwd(),
 *   signal: controller.signal,
 *   onProgress: (progress) => console.log(progress),
 * });
 * if (outcome.status === 'error') console.error(outcome.error.message);
 */
export async function runToolCall(
  registry: ToolRegistry,
  call: ToolCall,
  options: RunToolCallOptions,
): Promise<ToolOutcome> {
  try {
    return await runChecked(registry, call, options);
  } catch (error) {
    // Only reachable through a broken schema refinement or registry; still data, never a rejection.
    return errorOutcome(errorMessage(error));
  }
}

async function runChecked(
  registry: ToolRegistry,
  call: ToolCall,
  options: RunToolCallOptions,
): Promise<ToolOutcome> {
  const tool = registry.get(call.name);
  if (tool === undefined) {
    const available = registry.names();
    return errorOutcome(
      `unknown tool '${call.name}'; available: ${available.length > 0 ? available.join(', ') : '(none)'}`,
    );
  }
  const { signal: callerSignal } = options;
  if (callerSignal?.aborted) return errorOutcome('cancelled before it started');

  // Async so schemas with async refinements work too.
  const parsed = await tool.input.safeParseAsync(call.input);
  if (!parsed.success) return errorOutcome(formatInputIssues(tool.name, parsed.error.issues));
  if (callerSignal?.aborted) return errorOutcome('cancelled before it started');

  const timeoutMs = effectiveTimeout(options.timeoutMs, tool.timeoutMs);
  const controller = new AbortController();

  return new Promise<ToolOutcome>((resolvePromise) => {
    let settled = false;
    const settle = (outcome: ToolOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
      resolvePromise(outcome);
    };
    // The caller's abort is passed on, and the call still ends the way the tool says: a tool may
    // finish its work anyway, and the model must be told what really happened.
    const onCallerAbort = (): void => controller.abort(callerSignal?.reason);
    const timer = setTimeout(() => {
      const message = `timed out after ${timeoutMs} ms`;
      settle(errorOutcome(message));
      controller.abort(new DOMException(message, 'TimeoutError'));
    }, timeoutMs);
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

    const workspace = resolve(options.workspace);
    const changedPaths = new Set<string>();
    const ctx: ToolContext = {
      signal: controller.signal,
      workspace,
      callId: call.id,
      reportProgress: (progress) => {
        if (settled) return;
        const data =
          progress === undefined ? { ok: true as const, value: undefined } : toJsonData(progress);
        try {
          if (data.ok) options.onProgress?.(data.value);
          else options.onProgressRefused?.(`progress ${data.reason}`, progress);
        } catch {
          // A display listener failing must not fail the tool.
        }
      },
      reportChangedPaths: (paths) => {
        if (settled) return;
        for (const path of paths) {
          const relativePath = workspaceRelative(workspace, path);
          if (relativePath !== null) changedPaths.add(relativePath);
        }
      },
    };

    // Deferred by a microtask so a tool that throws synchronously becomes a rejection too.
    Promise.resolve()
      .then(() => tool.execute(parsed.data, ctx))
      .then(
        (value) => settle(withChangedPaths(toSuccess(tool.name, value), changedPaths)),
        (error: unknown) => settle(errorOutcome(errorMessage(error))),
      );
  });
}

function effectiveTimeout(requested: number | undefined, toolDefault: number): number {
  if (requested === undefined || Number.isNaN(requested) || requested <= 0) return toolDefault;
  return Math.min(requested, MAX_TIMEOUT_MS);
}

function toSuccess(toolName: string, value: unknown): ToolOutcome {
  if (typeof value === 'string') return { status: 'success', output: value };
  const blocks = contentOf(value);
  if (blocks !== undefined) return contentSuccess(toolName, blocks);
  if (value === undefined) return { status: 'success', output: '' };
  const data = toJsonData(value);
  if (!data.ok) {
    return errorOutcome(
      `tool '${toolName}' returned a value that ${data.reason}; it must return a string or plain JSON data`,
    );
  }
  return { status: 'success', output: data.value };
}

/** Content blocks as a success, once each is plain JSON data with a `type`. */
function contentSuccess(toolName: string, blocks: readonly unknown[]): ToolOutcome {
  const data = toJsonData(blocks);
  if (!data.ok) {
    return errorOutcome(`tool '${toolName}' returned content that ${data.reason}`);
  }
  const content = data.value as ToolResultContent[];
  const untyped = content.findIndex(
    (block) => typeof block !== 'object' || block === null || typeof block.type !== 'string',
  );
  if (untyped !== -1) {
    return errorOutcome(
      `tool '${toolName}' returned content whose block ${untyped} has no type; each block is { type: 'text' | 'image' | 'document' | …, … }`,
    );
  }
  return { status: 'success', content };
}

/**
 * `value` as the plain JSON data `JSON.stringify` makes of it (dates become strings, `toJSON` is
 * honoured), so it can live in a stored snapshot; or why it has none.
 */
function toJsonData(value: unknown): { ok: true; value: unknown } | { ok: false; reason: string } {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    // BigInts, cycles, getters and proxy traps that throw.
    return { ok: false, reason: `is not JSON-serialisable (${errorMessage(error)})` };
  }
  if (text === undefined) {
    return { ok: false, reason: `is not JSON-serialisable (got a ${typeof value})` };
  }
  // Parsed text is plain data; the copy only holds it to the depth every event is held to.
  const copied = copyPlainJson(JSON.parse(text), 'the value');
  return copied.ok ? copied : { ok: false, reason: `cannot be kept (${copied.problem})` };
}

function withChangedPaths(outcome: ToolOutcome, paths: ReadonlySet<string>): ToolOutcome {
  if (outcome.status !== 'success' || paths.size === 0) return outcome;
  return { ...outcome, changedPaths: [...paths] };
}

/** `path` relative to the workspace with `/` separators, or null when it is not inside it. */
function workspaceRelative(workspace: string, path: unknown): string | null {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) return null;
  const absolute = resolve(workspace, path);
  const relativePath = relative(workspace, absolute);
  if (relativePath === '' || isAbsolute(relativePath)) return null;
  const parts = relativePath.split(sep);
  return parts[0] === '..' ? null : parts.join('/');
}
