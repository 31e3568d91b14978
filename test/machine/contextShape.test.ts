/**
 * The context's shape is part of the hot path: XState copies the whole context into a new object
 * on every assign, a streamed delta included, and V8 makes that copy much dearer once an object
 * has more than a few properties past what it keeps in the object itself. A new piece of state
 * joins a field that groups its kind (as `output` groups a turn's structured answer) rather than
 * adding fields; the bench measures the cost (`npm run bench`).
 */
import { describe, expect, it } from 'vitest';
import { AgentCore } from '../../src/index.js';
import { userInput } from '../support/events.js';

/** The fields the context has today; raising it needs a paired bench run at 500 agents. */
const MOST_FIELDS = 18;

describe('the shape of the context', () => {
  it(`keeps at most ${MOST_FIELDS} top-level fields`, () => {
    expect(Object.keys(new AgentCore({}).context).length).toBeLessThanOrEqual(MOST_FIELDS);
  });

  it('restores a snapshot with fields an older version kept to the fields of this one', () => {
    const core = new AgentCore({});
    core.handleEvent(userInput('hi'));
    const stored = core.snapshot();
    const older = { ...stored, context: { ...stored.context, responses: 3, droppedLater: true } };
    const restored = AgentCore.fromSnapshot(older);
    expect(Object.keys(restored.context)).toEqual(Object.keys(new AgentCore({}).context));
  });
});
