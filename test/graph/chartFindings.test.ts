/**
 * Defects the generated suite once surfaced, kept as focused tests of the behaviour DESIGN asks
 * for: a crashing actor becomes state and leaves nothing behind. Each comes with a test of its
 * premise, so a changed premise cannot make the check pass vacuously.
 */
import { describe, expect, it } from 'vitest';
import { type AgentEvent, agentMachine } from '../../src/index.js';
import { ActorRun } from './actorRun.js';
import { failures, replies } from './modelReplies.js';
import { concretize } from './pathEvents.js';
import { openVariant } from './variants.js';

const userInput: AgentEvent = { type: 'UserInput', message: { role: 'user', content: 'go' } };

/** Actor mode with scripted doubles, driven through `events` (templates made concrete). */
function actorAfter(events: readonly AgentEvent[]): ActorRun {
  const run = new ActorRun(agentMachine, openVariant.config);
  for (const event of events) run.send(concretize(event, run.view().context, 1));
  return run;
}

describe('a retry timer actor that crashes (UserInput → LlmError 500 → xstate.error.actor.retryTimer)', () => {
  const upToTheCrash = [userInput, failures.serverError];

  it('happens while the agent waits out a backoff with its timer running', () => {
    const run = actorAfter(upToTheCrash);
    expect(run.view().state).toBe('Error');
    expect(run.takeProblems()).toEqual([]);
  });

  // Errors must become state (DESIGN section 4): a broken timer retries at once, and says so.
  it('becomes state instead of stopping the agent: the retry happens at once', () => {
    const run = actorAfter(upToTheCrash);
    run.send({ type: 'xstate.error.actor.retryTimer' });
    expect(run.view().status).toBe('active');
    expect(run.view().state).toBe('CallingLlm');
  });
});

describe('a tool actor that crashes (UserInput → LlmCompleted(read_file) → xstate.error.actor.<call>)', () => {
  const upToTheCrash = [userInput, replies.readOnly];

  it('has its call answered with the error, and the turn goes on to the model', () => {
    const run = actorAfter(upToTheCrash);
    const callId = run.view().context.toolRuns[0]?.call.id ?? '';
    run.send({ type: `xstate.error.actor.${callId}` });
    expect(run.view().state).toBe('CallingLlm');
    expect(run.view().context.toolRuns[0]?.outcome).toMatchObject({ status: 'error' });
  });

  // A failed child would otherwise stay in `snapshot.children` (and in every persisted
  // snapshot) for the rest of the agent's life.
  it('leaves no trace of the failed actor among the agent children', () => {
    const run = actorAfter(upToTheCrash);
    const callId = run.view().context.toolRuns[0]?.call.id ?? '';
    run.send({ type: `xstate.error.actor.${callId}` });
    expect(run.childIds()).toEqual(['llm']);
  });
});
