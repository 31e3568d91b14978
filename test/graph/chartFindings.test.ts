/**
 * Defects the generated suite once surfaced, kept as focused tests of the behaviour DESIGN asks
 * for: a crashing actor becomes state and leaves nothing behind. The chart handles no actor
 * errors itself: the failure boundary around each actor turns a throw into the chart's event
 * for it, reported once. Each comes with a test of its premise, so a changed premise cannot make
 * the check pass vacuously.
 */
import { describe, expect, it } from 'vitest';
import { type AgentEvent, agentMachine } from '../../src/index.js';
import { ActorRun } from './actorRun.js';
import { failures, replies } from './modelReplies.js';
import { actorCrash as crash, CRASH_MESSAGE, concretize, type PathEvent } from './pathEvents.js';
import { openVariant } from './variants.js';

const userInput: AgentEvent = { type: 'UserInput', message: { role: 'user', content: 'go' } };

/** Actor mode with scripted doubles, driven through `events` (templates made concrete). */
function actorAfter(events: readonly PathEvent[]): ActorRun {
  const run = new ActorRun(agentMachine, openVariant.config);
  for (const event of events) run.send(concretize(event, run.view().context, 1));
  return run;
}

describe('a retry timer actor that crashes (UserInput → LlmError 500 → crash(retryTimer))', () => {
  const upToTheCrash = [userInput, failures.serverError];

  it('happens while the agent waits out a backoff with its timer running', () => {
    const run = actorAfter(upToTheCrash);
    expect(run.view().state).toBe('Error');
    expect(run.childIds()).toEqual(['retryTimer']);
    expect(run.takeProblems()).toEqual([]);
  });

  // Errors must become state (DESIGN section 4): a broken timer retries at once.
  it('becomes state instead of stopping the agent: the retry happens at once, and the failure is reported once', () => {
    const run = actorAfter(upToTheCrash);
    const step = run.send(crash('retryTimer'));
    expect(step.status).toBe('active');
    expect(step.state).toEqual({ CallingLlm: 'Streaming' });
    expect(step.actions.map((action) => action.type)).toEqual(['SendLlmRequest']);
    expect(run.takeProblems()).toEqual([]);
  });
});

describe('a tool actor that crashes (UserInput → LlmCompleted(read_file) → crash(<call>))', () => {
  const upToTheCrash = [userInput, replies.readOnly];

  it('has its call answered with the error, and the turn goes on to the model', () => {
    const run = actorAfter(upToTheCrash);
    const callId = run.view().context.toolRuns[0]?.call.id ?? '';
    run.send(crash('tool', callId));
    expect(run.view().state).toEqual({ CallingLlm: 'Streaming' });
    expect(run.view().context.toolRuns[0]?.outcome).toEqual({
      status: 'error',
      error: { message: `tool 'read_file' failed: ${CRASH_MESSAGE}` },
    });
    expect(run.takeProblems()).toEqual([]);
  });

  // A failed child would otherwise stay in `snapshot.children` (and in every persisted
  // snapshot) for the rest of the agent's life.
  it('leaves no trace of the failed actor among the agent children', () => {
    const run = actorAfter(upToTheCrash);
    const callId = run.view().context.toolRuns[0]?.call.id ?? '';
    expect(run.childIds()).toEqual([callId]);
    run.send(crash('tool', callId));
    expect(run.childIds()).toEqual(['llm']);
  });
});

describe('a hook actor that crashes (UserInput → LlmCompleted(edit_file) → ToolCompleted → crash(postToolsHook))', () => {
  it('is skipped: the user is told the hook failed, and the turn goes on to the model', () => {
    const run = actorAfter([userInput, replies.mutating]);
    const callId = run.view().context.toolRuns[0]?.call.id ?? '';
    run.send({ type: 'ToolCompleted', callId, outcome: { status: 'success', output: 'edited' } });
    expect(run.view().state).toBe('PostToolsHook');
    const step = run.send(crash('postToolsHook'));
    expect(step.state).toEqual({ CallingLlm: 'Streaming' });
    expect(step.actions[0]).toEqual({
      type: 'DisplayError',
      message: `The post-tools hook failed and was skipped: ${CRASH_MESSAGE}`,
      source: 'hook',
    });
    expect(run.childIds()).toEqual(['llm']);
    expect(run.takeProblems()).toEqual([]);
  });
});

describe('an llm actor that crashes (UserInput → crash(llm))', () => {
  it('is a failed attempt, retried after a backoff', () => {
    const run = actorAfter([userInput]);
    const step = run.send(crash('llm'));
    expect(step.state).toBe('Error');
    expect(step.context.lastError).toEqual({
      kind: 'unknown',
      message: `the llm actor failed: ${CRASH_MESSAGE}`,
    });
    expect(step.actions.map((action) => action.type)).toEqual(['LlmCallEnded', 'ScheduleRetry']);
    expect(run.childIds()).toEqual(['retryTimer']);
    expect(run.takeProblems()).toEqual([]);
  });
});

describe('a grace timer actor that crashes (UserInput → LlmCompleted(read_file) → Interrupt → crash(toolGraceTimer))', () => {
  it('waits while the interrupted call runs on, with its grace timer', () => {
    const run = actorAfter([userInput, replies.readOnly, { type: 'Interrupt' }]);
    const callId = run.view().context.toolRuns[0]?.call.id ?? '';
    expect(run.view().state).toEqual({ WaitingForUserInput: 'SettlingCancelledCalls' });
    expect(run.childIds().sort()).toEqual([callId, 'toolGraceTimer'].sort());
    expect(run.takeProblems()).toEqual([]);
  });

  it('ends the grace period at once: the call is answered with what is known and nothing is left running', () => {
    const run = actorAfter([userInput, replies.readOnly, { type: 'Interrupt' }]);
    const callId = run.view().context.toolRuns[0]?.call.id ?? '';
    const step = run.send(crash('toolGraceTimer'));
    expect(step.state).toEqual({ WaitingForUserInput: 'Ready' });
    expect(step.actions).toEqual([{ type: 'Cancel', toolCallIds: [callId] }]);
    expect(step.context.messages.at(-1)?.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: callId,
        content: 'interrupted: the user interrupted the turn before this tool call finished',
        is_error: true,
      },
    ]);
    expect(run.childIds()).toEqual([]);
    expect(run.takeProblems()).toEqual([]);
  });
});
