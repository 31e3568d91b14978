/**
 * Stable codes of {@link AgentStatechartError}. Match on the code, never on the message: messages
 * may be reworded, codes stay.
 *
 * - `DUPLICATE_TOOL`: two tools of one registry share a name.
 * - `INVALID_TOOL_DEFINITION`: a tool's name, description, timeout or input schema is unusable.
 * - `PATH_OUTSIDE_WORKSPACE`: a path given to a built-in tool leaves the workspace root.
 * - `INVALID_WORKSPACE`: the workspace root does not exist or is not a directory.
 * - `INVALID_MACHINE_SPEC`: a diagram's `--machine` is not `MODULE` or `MODULE:EXPORT`.
 * - `MODULE_NOT_LOADED`: a module named on the command line (a machine to draw, hooks to run)
 *   could not be found or threw while loading.
 * - `EXPORT_NOT_FOUND`: the module has no export of that name.
 * - `NOT_A_MACHINE`: the export is not an XState v5 machine.
 * - `MISSING_PEER_DEPENDENCY`: an optional peer (`@statelyai/inspect`) is not installed.
 * - `UNSAFE_BIND`: an inspector was asked to listen beyond this machine without a token.
 * - `INVALID_OPTION`: an option has a value that cannot be used.
 * - `LISTEN_FAILED`: a server could not take its address (usually: the port is in use).
 * - `INVALID_CONFIG`: the chart's configuration cannot be used (`maxRetries`, `maxTokens`, tools).
 * - `INVALID_SNAPSHOT`: what was given to restore is not a snapshot this version can read.
 * - `AGENT_FAILED`: the agent stopped on an internal error (`waitUntilIdle` rejects with it).
 * - `TIMED_OUT`: something waited longer than the `timeoutMs` it was given.
 * - `CANCELLED`: the reason an `AbortSignal` carries when the chart cancels work.
 * - `LAYOUT_FAILED`: a diagram could not be laid out.
 * - `SESSION_EXISTS`, `SESSION_NOT_FOUND`: a session store was asked to create a session it has,
 *   or to write to one it does not.
 * - `SESSION_CONFLICT`: another writer appended to the session first.
 * - `SESSION_FENCED`: a newer writer claimed the session; this one may no longer write to it.
 * - `SESSION_CORRUPT`: stored data cannot be read (it is reported, never repaired or dropped).
 * - `SESSION_VERSION_MISMATCH`: a session was recorded by another version of the chart.
 * - `STORE_FAILED`: the session store could not be reached or refused a write.
 * - `AGENT_NOT_READY`: an agent with a session store was read before its session was open.
 * - `NO_OUTPUT`: a turn `agent.run` waited for ended without its answer.
 * - `PROMPT_DROPPED`: the message `agent.run` sent started no turn (the `userPromptSubmit` hook
 *   blocked it).
 * - `HOST_CLOSED`: an agent host was used after `close()`.
 * - `EVENT_NOT_ACCEPTED`: a method asked for what the agent does not do where it stands
 *   (`agent.compact()` during a turn, or after the agent stopped); nothing changed.
 *
 * @example
 * const code: AgentStatechartErrorCode = 'DUPLICATE_TOOL';
 */
export type AgentStatechartErrorCode =
  | 'DUPLICATE_TOOL'
  | 'INVALID_TOOL_DEFINITION'
  | 'PATH_OUTSIDE_WORKSPACE'
  | 'INVALID_WORKSPACE'
  | 'INVALID_MACHINE_SPEC'
  | 'MODULE_NOT_LOADED'
  | 'EXPORT_NOT_FOUND'
  | 'NOT_A_MACHINE'
  | 'MISSING_PEER_DEPENDENCY'
  | 'UNSAFE_BIND'
  | 'INVALID_OPTION'
  | 'LISTEN_FAILED'
  | 'INVALID_CONFIG'
  | 'INVALID_SNAPSHOT'
  | 'AGENT_FAILED'
  | 'TIMED_OUT'
  | 'CANCELLED'
  | 'LAYOUT_FAILED'
  | 'SESSION_EXISTS'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_CONFLICT'
  | 'SESSION_FENCED'
  | 'SESSION_CORRUPT'
  | 'SESSION_VERSION_MISMATCH'
  | 'STORE_FAILED'
  | 'AGENT_NOT_READY'
  | 'NO_OUTPUT'
  | 'PROMPT_DROPPED'
  | 'HOST_CLOSED'
  | 'EVENT_NOT_ACCEPTED';

/**
 * The one error class of the package for mistakes a programmer (or the model, for paths) can fix.
 * Its message says what to change; its `code` is stable for programs to branch on.
 *
 * Tool failures at run time never escape as this error: `runToolCall` turns every throw into an
 * error outcome the model reads.
 *
 * @example
 * try {
 *   createToolRegistry([readFile, readFile]);
 * } catch (error) {
 *   if (error instanceof AgentStatechartError && error.code === 'DUPLICATE_TOOL') {
 *     console.error(error.message);
 *   }
 * }
 */
export class AgentStatechartError extends Error {
  /** What went wrong, as a stable identifier. */
  readonly code: AgentStatechartErrorCode;

  /**
   * @example
   * throw new AgentStatechartError('DUPLICATE_TOOL', "two tools are named 'bash'; rename one");
   */
  constructor(code: AgentStatechartErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AgentStatechartError';
    this.code = code;
  }
}

/**
 * The message of anything thrown: an `Error`'s message (its name when the message is empty), a
 * string as it is, anything else as JSON (or its `String` form when it has no JSON one). Never
 * throws.
 *
 * @example
 * errorMessage(new Error('disk full')); // 'disk full'
 * errorMessage({ code: 7 }); // '{"code":7}'
 */
export function errorMessage(error: unknown): string {
  if (typeof error === 'string') return error;
  try {
    if (error instanceof Error) return error.message || error.name;
    return JSON.stringify(error) ?? String(error);
  } catch {
    // BigInts, cycles, throwing getters and proxy traps have no JSON form.
    return safeString(error);
  }
}

function safeString(value: unknown): string {
  try {
    return String(value);
  } catch {
    try {
      return Object.prototype.toString.call(value);
    } catch {
      return `a ${typeof value} that cannot be described`;
    }
  }
}
