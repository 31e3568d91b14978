/**
 * The coalescer between a model stream and the chart: fewer events, same text, same order; and
 * the delta channel a host uses to show text at once and let the chart catch up on demand.
 */
import { describe, expect, it } from 'vitest';
import {
  AgentCore,
  closeDeltaCoalescer,
  DeltaCoalescer,
  type FlushScheduler,
  type LlmTextDeltaEvent,
  type LlmToolCallDeltaEvent,
  openDeltaCoalescer,
} from '../../src/index.js';
import { bindDeltaChannel, DeltaChannel } from '../../src/actors/deltaChannel.js';

type Delta = LlmTextDeltaEvent | LlmToolCallDeltaEvent;
const text = (content: string): LlmTextDeltaEvent => ({ type: 'LlmTextDelta', content });
const tool = (callId: string, fragment: string): LlmToolCallDeltaEvent => ({
  type: 'LlmToolCallDelta',
  callId,
  toolName: 'bash',
  argumentsFragment: fragment,
});

/** A scheduler the test fires by hand, counting how often a flush was scheduled. */
function manual() {
  let pending: (() => void) | null = null;
  let scheduled = 0;
  const schedule: FlushScheduler = (flush) => {
    scheduled++;
    pending = flush;
    return () => {
      pending = null;
    };
  };
  return {
    schedule,
    tick: () => {
      const flush = pending;
      pending = null;
      flush?.();
    },
    get scheduled() {
      return scheduled;
    },
  };
}

describe('DeltaCoalescer', () => {
  it('sends one batch per tick, in order, and schedules once per batch', () => {
    const sent: Delta[] = [];
    const ticks = manual();
    const coalescer = new DeltaCoalescer((event) => sent.push(event), { schedule: ticks.schedule });
    for (const piece of ['Hel', 'lo', ', ', 'world']) coalescer.push(text(piece));
    expect(sent).toEqual([]);
    expect(ticks.scheduled).toBe(1);
    ticks.tick();
    expect(sent).toEqual([text('Hello, world')]);
    coalescer.push(text('!'));
    expect(ticks.scheduled).toBe(2);
    ticks.tick();
    expect(sent).toEqual([text('Hello, world'), text('!')]);
  });

  it('keeps the order across kinds and calls', () => {
    const sent: Delta[] = [];
    const coalescer = new DeltaCoalescer((event) => sent.push(event), {
      schedule: manual().schedule,
    });
    coalescer.push(text('Let me look.'));
    coalescer.push(tool('t1', '{"comm'));
    coalescer.push(tool('t1', 'and":"ls"}'));
    coalescer.push(tool('t2', '{}'));
    coalescer.push(text('Done'));
    coalescer.flush();
    expect(sent).toEqual([
      text('Let me look.'),
      tool('t1', '{"command":"ls"}'),
      tool('t2', '{}'),
      text('Done'),
    ]);
  });

  it('drops what is pending on discard, and a cancelled tick sends nothing', () => {
    const sent: Delta[] = [];
    const ticks = manual();
    const coalescer = new DeltaCoalescer((event) => sent.push(event), { schedule: ticks.schedule });
    coalescer.push(text('never seen'));
    coalescer.discard();
    ticks.tick();
    coalescer.flush();
    expect(sent).toEqual([]);
  });

  /** A coalescer that shows text, with everything it shows and sends recorded. */
  function showing(chartUpdates?: 'onDemand') {
    const sent: Delta[] = [];
    const shown: string[] = [];
    const ticks = manual();
    const coalescer = new DeltaCoalescer((event) => sent.push(event), {
      schedule: ticks.schedule,
      show: (piece) => shown.push(piece),
      ...(chartUpdates ? { chartUpdates } : {}),
    });
    return { sent, shown, ticks, coalescer };
  }

  it('with show, shows each batch and marks the chart copy shown', () => {
    const { sent, shown, ticks, coalescer } = showing();
    coalescer.push(text('Hel'));
    coalescer.push(text('lo'));
    expect(shown).toEqual([]);
    ticks.tick();
    expect(shown).toEqual(['Hello']);
    expect(sent).toEqual([{ type: 'LlmTextDelta', content: 'Hello', shown: true }]);
  });

  it('with chart updates on demand, ticks only show; flush hands the chart every run in order', () => {
    const { sent, shown, ticks, coalescer } = showing('onDemand');
    coalescer.push(text('Let me '));
    ticks.tick();
    coalescer.push(text('look.'));
    coalescer.push(tool('t1', '{"comm'));
    ticks.tick();
    coalescer.push(tool('t1', 'and":"ls"}'));
    coalescer.push(text(' Done'));
    ticks.tick();
    expect(shown).toEqual(['Let me ', 'look.', ' Done']);
    expect(sent).toEqual([]);
    coalescer.flush();
    expect(sent).toEqual([
      { type: 'LlmTextDelta', content: 'Let me look.', shown: true },
      tool('t1', '{"command":"ls"}'),
      { type: 'LlmTextDelta', content: ' Done', shown: true },
    ]);
    // Text that arrived since the last tick is shown before the chart gets it.
    coalescer.push(text('!'));
    coalescer.flush();
    expect(shown.at(-1)).toBe('!');
    expect(sent.at(-1)).toEqual({ type: 'LlmTextDelta', content: '!', shown: true });
  });

  it('finish shows the rest; the chart copy is dropped on demand, sent with each batch', () => {
    const lazy = showing('onDemand');
    lazy.coalescer.push(text('The end'));
    lazy.coalescer.push(tool('t1', '{}'));
    lazy.coalescer.finish();
    expect(lazy.shown).toEqual(['The end']);
    expect(lazy.sent).toEqual([]);
    lazy.coalescer.flush();
    expect(lazy.sent).toEqual([]);

    const eager = showing();
    eager.coalescer.push(text('The end'));
    eager.coalescer.finish();
    expect(eager.shown).toEqual(['The end']);
    expect(eager.sent).toEqual([{ type: 'LlmTextDelta', content: 'The end', shown: true }]);
  });

  it('feeds a chart that records shown text without displaying it again', () => {
    const core = new AgentCore();
    core.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
    const actions: string[] = [];
    const ticks = manual();
    const coalescer = new DeltaCoalescer(
      (event) => actions.push(...core.handleEvent(event).map((action) => action.type)),
      { schedule: ticks.schedule, show: () => undefined, chartUpdates: 'onDemand' },
    );
    coalescer.push(text('Hel'));
    coalescer.push(text('lo'));
    ticks.tick();
    expect(core.context.streamingText).toBe('');
    coalescer.flush();
    expect(core.context.streamingText).toBe('Hello');
    expect(actions).toEqual([]);
  });
});

describe('delta channels', () => {
  it('hand a bound system the host coalescer, and flush reaches the running call only', () => {
    const system = {};
    const shown: string[] = [];
    const channel = new DeltaChannel({ show: (t) => shown.push(t), chartUpdates: 'onDemand' });
    bindDeltaChannel(system, channel);
    const first: Delta[] = [];
    const call = openDeltaCoalescer(system, (event) => first.push(event));
    call.push(text('a'));
    channel.flush();
    expect(first).toEqual([{ type: 'LlmTextDelta', content: 'a', shown: true }]);
    expect(shown).toEqual(['a']);
    closeDeltaCoalescer(system, call);
    call.push(text('late'));
    channel.flush();
    expect(first).toHaveLength(1);
  });

  it('give an unbound system a plain per-tick coalescer', () => {
    const sent: Delta[] = [];
    const ticks = manual();
    const call = openDeltaCoalescer({}, (event) => sent.push(event), { schedule: ticks.schedule });
    call.push(text('x'));
    expect(sent).toEqual([]);
    ticks.tick();
    expect(sent).toEqual([text('x')]);
  });

  it('a newer call stays reachable when an older one closes late', () => {
    const system = {};
    const channel = new DeltaChannel({ chartUpdates: 'onDemand' });
    bindDeltaChannel(system, channel);
    const sent: Delta[] = [];
    const older = openDeltaCoalescer(system, (event) => sent.push(event));
    const newer = openDeltaCoalescer(system, (event) => sent.push(event));
    closeDeltaCoalescer(system, older);
    newer.push(text('still here'));
    channel.flush();
    expect(sent).toEqual([text('still here')]);
  });
});
