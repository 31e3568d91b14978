/**
 * The `postToolsHook` actor: git auto-commit of what a successful mutating tool changed (Loom's
 * rules; only the paths the tools reported, see `gitAutoCommit`). Fail-open: whatever happens,
 * it answers `PostToolsHookCompleted` and the agent goes on; a failure is in that event's
 * `error` (the chart shows it), never thrown.
 */
import { type EventObject, fromCallback } from 'xstate';
import {
  type AgentEvent,
  AgentStatechartError,
  type BeforeEffect,
  errorMessage,
  type PostToolsHookInput,
} from '../machine/index.js';
import { type GitAutoCommitResult, gitAutoCommit } from './hooks/gitAutoCommit.js';
import type { InFlightWork } from './inFlightWork.js';

/**
 * Options of {@link createGitAutoCommitActor}.
 *
 * @example
 * const options: GitAutoCommitActorOptions = { workspace: '/srv/repo', onResult: (r) => log(r) };
 */
export interface GitAutoCommitActorOptions {
  workspace: string;
  /** Whether a tool name is mutating (default: Loom's edit_file, write_file, bash). */
  isMutating?: (toolName: string) => boolean;
  /** Receives every result: the commit made, why none was made, or the error. */
  onResult?: (result: GitAutoCommitResult) => void;
  /** Where the actor registers its work, so a graceful shutdown can wait for it. */
  inFlight?: InFlightWork;
  /** Awaited before the hook runs (a durable session records it first). */
  beforeStart?: BeforeEffect;
}

/**
 * Makes the `postToolsHook` actor that commits the agent's changes with git.
 *
 * @example
 * const postToolsHook = createGitAutoCommitActor({ workspace: process.cwd(), onResult: console.log });
 */
export function createGitAutoCommitActor(options: GitAutoCommitActorOptions) {
  return fromCallback<EventObject, PostToolsHookInput>(({ input, sendBack }) => {
    const controller = new AbortController();
    const run = async (): Promise<GitAutoCommitResult> => {
      try {
        await options.beforeStart?.({ effect: 'hook' });
      } catch (error) {
        return { actionTaken: false, error: `not run: ${errorMessage(error)}` };
      }
      return gitAutoCommit({
        workspace: options.workspace,
        completedTools: input.completedTools,
        changedPaths: input.changedPaths,
        signal: controller.signal,
        ...(options.isMutating ? { isMutating: options.isMutating } : {}),
      });
    };
    const work = run()
      .catch((error: unknown): GitAutoCommitResult => ({
        actionTaken: false,
        error: errorMessage(error),
      }))
      .then((result) => {
        if (controller.signal.aborted) return;
        try {
          options.onResult?.(result);
        } finally {
          sendBack({
            type: 'PostToolsHookCompleted',
            actionTaken: result.actionTaken,
            ...(result.error === undefined ? {} : { error: `auto-commit failed: ${result.error}` }),
          } satisfies AgentEvent);
        }
      });
    options.inFlight?.track(work);
    return () =>
      controller.abort(new AgentStatechartError('CANCELLED', 'the post-tools hook was cancelled'));
  });
}

/**
 * A `postToolsHook` actor that does nothing (for agents without auto-commit).
 *
 * @example
 * agentMachine.provide({ actors: { postToolsHook: noPostToolsHook } });
 */
export const noPostToolsHook = fromCallback<EventObject, PostToolsHookInput>(({ sendBack }) => {
  // Answer on the next turn of the event loop: an actor must not send to its parent while the
  // parent is still entering the state that started it.
  const handle = setImmediate(() =>
    sendBack({ type: 'PostToolsHookCompleted', actionTaken: false } satisfies AgentEvent),
  );
  return () => clearImmediate(handle);
});
