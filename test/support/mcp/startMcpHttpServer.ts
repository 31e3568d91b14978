/**
 * Starting the test MCP servers (testServer.ts) as child processes: the HTTP one here, the stdio
 * one by the MCP client itself from {@link stdioServerCommand}.
 *
 * Both run as Node with tsx's loader (`node --import <tsx> <entry>.ts`), not through the `tsx`
 * command, which would run the server in a grandchild that outlives a kill of its parent. tsx is
 * given by absolute URL, so the command works whatever the child's working directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const here = import.meta.dirname;
const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** How long the HTTP server may take to print its URL; tsx alone needs about half a second. */
const START_TIMEOUT_MS = 30_000;
/** How long a stopped server may take to exit after SIGTERM before it is killed outright. */
const STOP_GRACE_MS = 2_000;

/**
 * The command that starts the stdio test server, for `StdioClientTransport`. Its environment is
 * what the transport is given (the SDK passes only a few variables of its own, such as PATH), so
 * put `MCP_TEST_LOG` and the like in the transport's `env`.
 *
 * @example
 * const transport = new StdioClientTransport({ ...stdioServerCommand(), env: { MCP_TEST_LOG: log } });
 */
export function stdioServerCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', tsxLoader, join(here, 'stdioServer.ts')] };
}

export interface McpHttpServer {
  /** `http://127.0.0.1:<port>`; Streamable HTTP is at `${url}/mcp`, HTTP+SSE at `${url}/sse`. */
  readonly url: string;
  readonly child: ChildProcess;
  /** What the server wrote to stderr so far. */
  stderr(): string;
  /** Ends the server (SIGTERM, then SIGKILL); resolves once it has exited. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts the HTTP test server in a child process with `env` added to this process's environment
 * (`MCP_TEST_AUTH`, `MCP_TEST_SSE_ONLY`, `MCP_TEST_LOG`, …) and resolves once it listens. Rejects,
 * with what it wrote to stderr, if it exits first.
 *
 * @example
 * const server = await startMcpHttpServer({ MCP_TEST_AUTH: 'secret' });
 * const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`));
 * // …
 * await server.stop();
 */
export async function startMcpHttpServer(env: Record<string, string> = {}): Promise<McpHttpServer> {
  const child = spawn(process.execPath, ['--import', tsxLoader, join(here, 'httpServer.ts')], {
    env: { ...process.env, MCP_TEST_EXIT_WITH_STDIN: '1', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Never written to, only held: its end tells the server we are gone, even after a SIGKILL.
  // Unreferenced, so that it alone does not keep this process alive.
  (child.stdin as typeof child.stdin & { unref?: () => void }).unref?.();
  let stdout = '';
  let stderr = '';
  // Read stderr for as long as the child lives, or a chatty server would block on a full pipe.
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    }
  };

  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the MCP test server printed no URL in ${START_TIMEOUT_MS} ms`)),
        START_TIMEOUT_MS,
      );
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        stdout += chunk;
        const line = stdout.split('\n', 1)[0];
        if (line === undefined || !stdout.includes('\n')) return;
        clearTimeout(timer);
        try {
          resolve((JSON.parse(line) as { url: string }).url);
        } catch {
          reject(new Error(`the MCP test server printed ${line} instead of its URL`));
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      // 'close', not 'exit': by then all of stderr has been read.
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        reject(
          new Error(`the MCP test server exited (${signal ?? code}) before listening:\n${stderr}`),
        );
      });
    });
    return { url, child, stderr: () => stderr, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
