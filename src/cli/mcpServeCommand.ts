/**
 * `agent-statechart mcp-serve`: an agent served over MCP on stdio, for Claude Code, Claude
 * Desktop or any MCP client to hand tasks to. It talks to Claude when `ANTHROPIC_API_KEY` is set
 * and to the offline scripted model otherwise, as `run` does. stdout carries the protocol and
 * nothing else; what the command has to say goes to stderr.
 */
import { once } from 'node:events';
import { resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { createBuiltinTools, resolveWorkspaceRoot } from '../actors/index.js';
import { type Agent, createAgent } from '../agent/index.js';
import { errorMessage, PERMISSION_MODES, type PermissionMode } from '../machine/index.js';
import {
  type AgentMcpServer,
  connectMcpServers,
  type McpServers,
  serveAgentOverMcp,
} from '../mcp/index.js';
import { type MessagesApiServer, startMessagesApiServer } from '../testing/index.js';
import { readMcpConfig } from './mcpConfigFile.js';
import { offlineModel } from './offlineModel.js';
import { parseFlags } from './parseFlags.js';

/**
 * The mode the served agents start in without `--mode`: edits in the workspace run, and what
 * would ask first (shell commands, mutating MCP tools) is refused, since no one can answer.
 */
const DEFAULT_SERVE_MODE: PermissionMode = 'acceptEdits';

/**
 * `mcp-serve`'s options: `--workspace DIR`, `--mode MODE`, `--model NAME`, `--mcp-config FILE`.
 *
 * @example
 * const options: McpServeOptions = { workspace: process.cwd(), mode: 'acceptEdits' };
 */
export interface McpServeOptions {
  workspace: string;
  mode: PermissionMode;
  model?: string;
  /** The file of MCP servers the served agents take tools from (`.mcp.json`). */
  mcpConfig?: string;
}

/**
 * Where `mcp-serve` speaks: the protocol on `input` and `output` (stdin and stdout by default),
 * its own lines on `log` (stderr).
 *
 * @example
 * await mcpServeCommand([], { input, output, env: {}, log: (line) => logged.push(line) });
 */
export interface McpServeIo {
  input: Readable;
  output: Writable;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
}

/**
 * Parses `mcp-serve`'s options.
 *
 * @example
 * parseMcpServeOptions(['--mode', 'plan']); // { workspace: process.cwd(), mode: 'plan' }
 */
export function parseMcpServeOptions(argv: string[]): McpServeOptions {
  const { values, positional } = parseFlags(argv, 'mcp-serve', [
    '--workspace',
    '--mode',
    '--model',
    '--mcp-config',
  ]);
  if (positional.length > 0) {
    throw new Error(`mcp-serve takes only options; got '${positional[0]}'`);
  }
  const mode = values.get('--mode') ?? DEFAULT_SERVE_MODE;
  if (!(PERMISSION_MODES as readonly string[]).includes(mode)) {
    throw new Error(`--mode must be one of ${PERMISSION_MODES.join(', ')}; got '${mode}'`);
  }
  const model = values.get('--model');
  const mcpConfig = values.get('--mcp-config');
  return {
    workspace: resolve(values.get('--workspace') ?? process.cwd()),
    mode: mode as PermissionMode,
    ...(model === undefined ? {} : { model }),
    ...(mcpConfig === undefined ? {} : { mcpConfig }),
  };
}

/**
 * Serves agents over MCP on stdio until the client closes the connection (stdin ends) or the
 * process is told to stop (SIGINT, SIGTERM); then shuts every agent down.
 *
 * @example
 * process.exitCode = await mcpServeCommand(process.argv.slice(3));
 */
export async function mcpServeCommand(
  argv: string[],
  io: McpServeIo = {
    input: process.stdin,
    output: process.stdout,
    env: process.env,
    log: (line) => process.stderr.write(`${line}\n`),
  },
): Promise<number> {
  const options = parseMcpServeOptions(argv);
  // What can be refused is refused before anything starts.
  await resolveWorkspaceRoot(options.workspace);
  const mcpConfig =
    options.mcpConfig === undefined ? undefined : await readMcpConfig(options.mcpConfig, io.env);
  const offline = !io.env.ANTHROPIC_API_KEY;
  let servers: McpServers | undefined;
  let model: MessagesApiServer | undefined;
  let served: AgentMcpServer | undefined;
  // A stray console.log (ours or a dependency's) would corrupt the protocol on stdout.
  const consoleLog = console.log;
  const toStdout = io.output === process.stdout;
  if (toStdout) console.log = console.error;
  const stopWaiting = new AbortController();
  try {
    if (mcpConfig !== undefined) {
      servers = await connectMcpServers(mcpConfig, { cwd: options.workspace });
    }
    if (offline) model = await startMessagesApiServer({ script: offlineModel });
    served = serveAgentOverMcp({
      name: 'agent-statechart',
      description: `It works in ${options.workspace}, in permission mode ${options.mode}.`,
      createAgent: agentMaker(options, io, servers, model),
    });
    await served.connectStdio(io.input, io.output);
    io.log(
      `agent-statechart mcp-serve · workspace ${options.workspace} · mode ${options.mode} · ${
        offline ? 'offline scripted model (no ANTHROPIC_API_KEY)' : 'Claude API'
      } · serving MCP on stdio`,
    );
    // The SDK's stdio transport does not watch for the end of its input: the client closing it
    // is how a stdio client says it is done with the server.
    const { signal } = stopWaiting;
    const until = (emitter: NodeJS.EventEmitter, event: string, why: string) =>
      once(emitter, event, { signal }).then(
        () => why,
        (error: unknown) => `${event} could not be awaited: ${errorMessage(error)}`,
      );
    const closedInput = 'the client closed the connection';
    io.log(
      `stopping: ${await Promise.race([
        io.input.readableEnded ? closedInput : until(io.input, 'end', closedInput),
        until(process, 'SIGINT', 'SIGINT'),
        until(process, 'SIGTERM', 'SIGTERM'),
      ])}`,
    );
  } catch (error) {
    io.log(`mcp-serve failed: ${errorMessage(error)}`);
    return 1;
  } finally {
    // The waits that lost the race stop listening.
    stopWaiting.abort();
    await served?.close();
    await servers?.close();
    await model?.close();
    if (toStdout) console.log = consoleLog;
  }
  return 0;
}

/**
 * Makes each served agent: in the workspace and mode asked for, sharing the built-in tools and
 * MCP servers, on the offline model when there is one, its errors logged.
 */
function agentMaker(
  options: McpServeOptions,
  io: McpServeIo,
  servers: McpServers | undefined,
  model: MessagesApiServer | undefined,
): () => Agent {
  // Made once for every agent: making the built-ins probes the OS sandbox, a process start.
  const tools = createBuiltinTools();
  return () => {
    const agent = createAgent({
      workspace: options.workspace,
      tools,
      permissions: { mode: options.mode },
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(servers === undefined ? {} : { mcpServers: servers }),
      ...(model === undefined ? {} : { anthropic: { baseURL: model.baseURL, apiKey: 'offline' } }),
    });
    agent.on('error', ({ message }) => io.log(`agent error: ${message}`));
    return agent;
  };
}
