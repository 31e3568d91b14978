/**
 * Properties of tool calls (DESIGN sections 3 and 5): tools run only as the permissions allow,
 * every open call is one the caller was told about, and the post-tools hook runs exactly after a
 * successful mutating call.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AgentConfig, AgentContext, ToolCall } from '../../../src/index.js';
import { toolCallsOf } from '../../../src/machine/transcript.js';
import {
  actionsOf,
  configArb,
  lengthArb,
  NO_SHUTDOWN,
  requestStarts,
  runScenario,
} from './scenario.js';

const LOOM_MUTATING = new Set(['edit_file', 'write_file', 'bash']);

function isMutating(name: string, config: AgentConfig): boolean {
  const spec = config.tools?.find((tool) => tool.name === name);
  return spec?.mutating ?? LOOM_MUTATING.has(name);
}

function isEdit(name: string, config: AgentConfig): boolean {
  const spec = config.tools?.find((tool) => tool.name === name);
  return spec?.edit ?? (isMutating(name, config) && name !== 'bash');
}

/**
 * DESIGN section 5, restated: what the permissions say about one call right now, with what the
 * `preToolUse` hook said of it (its `ask` asks unless refused; its `allow` runs it unless refused).
 */
function permissionFor(
  name: string,
  context: AgentContext,
  config: AgentConfig,
  verdict?: 'allow' | 'ask' | 'pass',
) {
  const mode = context.permissionMode;
  if (mode === null) return verdict === 'ask' ? 'ask' : 'allow';
  const remembered = context.rememberedDecisions[name];
  if (config.permissions?.deny?.includes(name) || remembered === 'deny') return 'deny';
  if (mode === 'plan' && isMutating(name, config)) return 'deny';
  if (verdict === 'ask') return 'ask';
  if (verdict === 'allow') return 'allow';
  if (!isMutating(name, config)) return 'allow';
  if (mode === 'plan') return 'deny';
  if (mode === 'bypassPermissions') return 'allow';
  if (remembered === 'allow' || config.permissions?.allow?.includes(name)) return 'allow';
  if (mode === 'acceptEdits' && isEdit(name, config)) return 'allow';
  return 'ask';
}

describe('AgentCore properties', () => {
  it('runs a tool only as the permissions allow, and never leaves a call the caller was not told about', () => {
    let started = 0;
    let asked = 0;
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        const startedIds = new Set<string>();
        const askedIds = new Set<string>();
        const questionIds = new Set<string>();
        const hookedIds = new Set<string>();
        // With askUser on, an ask_user call is the chart's own: it never runs and is never
        // approved; its questions are put to the user.
        const isQuestion = (call: ToolCall) => config.askUser === true && call.name === 'ask_user';
        // With agents configured, a task call runs in a subagent (StartSubagent), not as a tool;
        // one for no such agent is answered at once, never started.
        const isTask = (call: ToolCall) => config.agents !== undefined && call.name === 'task';
        const isValidTask = (call: ToolCall) =>
          isTask(call) && (call.input as { agent?: unknown }).agent === 'reviewer';
        runScenario({ g, config, length, profile: NO_SHUTDOWN }, (step) => {
          const { planned, contextAfter } = step;
          const event = planned.kind === 'valid' ? planned.event : null;
          const subagentCalls = actionsOf(step.actions, 'StartSubagent').map((start) => {
            expect(isValidTask(start.call), `${start.call.id} is not a valid task`).toBe(true);
            expect(start.spec).toEqual(config.agents?.[start.task.agent]);
            expect(start.permissionMode).toBe(contextAfter.permissionMode);
            return start.call;
          });
          for (const calls of [
            ...actionsOf(step.actions, 'ExecuteTools').map((action) => action.calls),
            subagentCalls,
          ]) {
            for (const call of calls) {
              started++;
              expect(isQuestion(call), `${call.id} is a question, not a tool to run`).toBe(false);
              expect(startedIds.has(call.id), `${call.id} started twice`).toBe(false);
              startedIds.add(call.id);
              const approved =
                event?.type === 'ToolApproval' &&
                event.callId === call.id &&
                event.decision === 'allow';
              const verdict = contextAfter.toolRuns.find((run) => run.call.id === call.id)?.verdict;
              if (!approved)
                expect(permissionFor(call.name, contextAfter, config, verdict)).toBe('allow');
            }
          }
          for (const { call } of actionsOf(step.actions, 'RequestApproval')) {
            asked++;
            expect(askedIds.has(call.id), `${call.id} asked twice`).toBe(false);
            askedIds.add(call.id);
            expect(isQuestion(call)).toBe(false);
            const verdict = contextAfter.toolRuns.find((run) => run.call.id === call.id)?.verdict;
            expect(permissionFor(call.name, contextAfter, config, verdict)).toBe('ask');
          }
          for (const { call } of actionsOf(step.actions, 'RunPreToolUseHook')) {
            expect(hookedIds.has(call.id), `${call.id} hooked twice`).toBe(false);
            expect(config.hooks?.preToolUse).toBe(true);
            hookedIds.add(call.id);
          }
          for (const { callId, questions } of actionsOf(step.actions, 'AskUser')) {
            expect(questionIds.has(callId), `${callId} asked twice`).toBe(false);
            questionIds.add(callId);
            const run = contextAfter.toolRuns.find((candidate) => candidate.call.id === callId);
            expect(run?.call.name).toBe('ask_user');
            expect(questions).toEqual((run?.call.input as { questions: unknown[] }).questions);
          }
          if (step.stateAfter === 'ExecutingTools') {
            for (const run of contextAfter.toolRuns) {
              if (run.status === 'running') expect(startedIds).toContain(run.call.id);
              if (run.status === 'awaitingApproval') expect(askedIds).toContain(run.call.id);
              if (run.status === 'awaitingAnswer') expect(questionIds).toContain(run.call.id);
              if (run.status === 'preHook') expect(hookedIds).toContain(run.call.id);
              expect(run.status).not.toBe('pending');
            }
          }
          if (
            event?.type === 'LlmCompleted' &&
            step.diagnostics.length === 0 &&
            contextAfter.permissionMode === null &&
            event.response.stopReason !== 'refusal' &&
            config.hooks?.preToolUse !== true
          ) {
            // Without permissions every call whose input parsed runs at once, in call order.
            const invalid = event.response.toolInputErrors ?? {};
            const parsed: ToolCall[] = toolCallsOf(event.response.message).filter(
              (call) => invalid[call.id] === undefined && !isQuestion(call),
            );
            const runnable = parsed.filter((call) => !isTask(call));
            expect(actionsOf(step.actions, 'ExecuteTools')).toEqual(
              runnable.length > 0 ? [{ type: 'ExecuteTools', calls: runnable }] : [],
            );
            expect(actionsOf(step.actions, 'StartSubagent').map((start) => start.call)).toEqual(
              parsed.filter(isValidTask),
            );
            expect(actionsOf(step.actions, 'RequestApproval')).toEqual([]);
          }
        });
      }),
      // Enough runs that the calls started and the calls asked about come well over their
      // minimums below on any seed.
      { numRuns: 400 },
    );
    // (Fewer than without the hooks on a turn: some turns end with a blocked prompt.)
    expect(started).toBeGreaterThan(180);
    expect(asked).toBeGreaterThan(30);
  });

  it('runs none of the tool calls of a refused response, answers each with an error and ends the turn', () => {
    let refusals = 0;
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        runScenario({ g, config, length, profile: NO_SHUTDOWN }, (step) => {
          const { planned } = step;
          if (planned.kind !== 'valid' || step.diagnostics.length > 0) return;
          const { event } = planned;
          if (event.type !== 'LlmCompleted' || event.response.stopReason !== 'refusal') return;
          refusals++;
          expect(actionsOf(step.actions, 'ExecuteTools')).toEqual([]);
          expect(actionsOf(step.actions, 'RequestApproval')).toEqual([]);
          expect(actionsOf(step.actions, 'DisplayError')).toHaveLength(1);
          // Queued input starts the next turn at once, after the userPromptSubmit hook if it is on;
          // a refusal is not a turn ending the stop hook is asked about.
          expect(actionsOf(step.actions, 'RunStopHook')).toEqual([]);
          const queued = step.contextBefore.queue.length > 0;
          if (queued && config.hooks?.userPromptSubmit === true) {
            expect(step.stateValueAfter).toEqual({ WaitingForUserInput: 'CheckingPrompt' });
          } else {
            expect(step.stateAfter).toBe(queued ? 'CallingLlm' : 'WaitingForUserInput');
          }
          const calls = toolCallsOf(event.response.message);
          const results = step.contextAfter.messages.find(
            (message, index) =>
              index > step.contextBefore.messages.length && message.role === 'user',
          );
          if (calls.length === 0) return;
          const blocks = Array.isArray(results?.content) ? results.content : [];
          expect(blocks.map((block) => block.type === 'tool_result' && block.tool_use_id)).toEqual(
            calls.map((call) => call.id),
          );
          for (const block of blocks) expect(block).toMatchObject({ is_error: true });
        });
      }),
      // A refusal is one response in twelve: enough runs that it comes well over its minimum below
      // on any seed.
      { numRuns: 600 },
    );
    expect(refusals).toBeGreaterThan(25);
  });

  it('runs the post-tools hook exactly when a mutating call succeeded, listing every call in order', () => {
    let hooks = 0;
    fc.assert(
      fc.property(configArb, fc.gen(), lengthArb, (config, g, length) => {
        runScenario({ g, config, length, profile: NO_SHUTDOWN }, (step) => {
          const hook = actionsOf(step.actions, 'RunPostToolsHook');
          const finishedTools =
            step.stateBefore === 'ExecutingTools' &&
            step.stateAfter !== 'ExecutingTools' &&
            !(step.planned.kind === 'valid' && step.planned.event.type === 'Interrupt');
          const runs = step.contextAfter.toolRuns;
          const mutatingSuccess = runs.some(
            (run) => run.outcome?.status === 'success' && isMutating(run.call.name, config),
          );
          if (finishedTools && mutatingSuccess) {
            hooks++;
            expect(step.stateAfter).toBe('PostToolsHook');
            expect(hook).toEqual([
              {
                type: 'RunPostToolsHook',
                completedTools: runs.map((run) => ({
                  name: run.call.name,
                  succeeded: run.outcome?.status === 'success',
                })),
              },
            ]);
          } else {
            expect(hook).toEqual([]);
            if (step.stateAfter === 'PostToolsHook') expect(step.stateBefore).toBe('PostToolsHook');
          }
          if (step.stateBefore === 'PostToolsHook' && step.stateAfter === 'CallingLlm') {
            // The next request goes out, or the compaction it needs first starts.
            expect(requestStarts(step.actions)).toHaveLength(1);
          }
        });
      }),
      // The hook needs a mutating call to succeed: enough runs that it comes well over its minimum
      // below on any seed.
      { numRuns: 400 },
    );
    expect(hooks).toBeGreaterThan(20);
  });
});
