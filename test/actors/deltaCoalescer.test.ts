/** The coalescer between a model stream and the chart: fewer events, same text, same order. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeltaCoalescer, type FlushScheduler } from '../../src/actors/deltaCoalescer.js';
import { AgentCore, type LlmTextDeltaEvent, type LlmToolCallDeltaEvent } from '../../src/index.js';

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
    const coalescer = new DeltaCoalescer((event) => sent.push(event), {
      windowMs: 0,
      schedule: ticks.schedule,
    });
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
      windowMs: 0,
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
    const coalescer = new DeltaCoalescer((event) => sent.push(event), {
      windowMs: 0,
      schedule: ticks.schedule,
    });
    coalescer.push(text('never seen'));
    coalescer.discard();
    ticks.tick();
    coalescer.flush();
    expect(sent).toEqual([]);
  });

  it('leaves the chart exactly the context the deltas one by one leave', () => {
    const start = () => {
      const core = new AgentCore();
      core.handleEvent({ type: 'UserInput', message: { role: 'user', content: 'hi' } });
      return core;
    };
    const pieces: Delta[] = [
      text('Let me '),
      text('look.'),
      tool('t1', '{"comm'),
      tool('t1', 'and":"ls"}'),
      text(' Done'),
    ];
    const oneByOne = start();
    for (const piece of pieces) oneByOne.handleEvent(piece);
    const batched = start();
    const displayed: string[] = [];
    const coalescer = new DeltaCoalescer(
      (event) => {
        for (const action of batched.handleEvent(event)) {
          if (action.type === 'DisplayMessage') displayed.push(action.text);
        }
      },
      { windowMs: 0, schedule: manual().schedule },
    );
    for (const piece of pieces) coalescer.push(piece);
    coalescer.flush();
    expect(batched.context).toEqual(oneByOne.context);
    expect(displayed.join('')).toBe('Let me look. Done');
  });

  describe('by default', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('sends a delta after a quiet frame at once, and what follows within the frame at its end', () => {
      vi.useFakeTimers();
      const sent: Array<{ at: number; event: Delta }> = [];
      const coalescer = new DeltaCoalescer((event) => sent.push({ at: Date.now(), event }));
      const start = Date.now();
      coalescer.push(text('a'));
      vi.advanceTimersByTime(5);
      coalescer.push(text('b'));
      vi.advanceTimersByTime(5);
      coalescer.push(text('c'));
      vi.advanceTimersByTime(5);
      expect(sent).toEqual([{ at: start, event: text('a') }]);
      vi.advanceTimersByTime(1);
      coalescer.push(text('d'));
      vi.advanceTimersByTime(16);
      // A slow stream: every delta at once, no timer.
      vi.advanceTimersByTime(100);
      coalescer.push(text('e'));
      vi.advanceTimersByTime(40);
      coalescer.push(text('f'));
      expect(sent).toEqual([
        { at: start, event: text('a') },
        { at: start + 16, event: text('bc') },
        { at: start + 32, event: text('d') },
        { at: start + 132, event: text('e') },
        { at: start + 172, event: text('f') },
      ]);
      expect(vi.getTimerCount()).toBe(0);
    });

    it('sends once per turn of the event loop with a window of 0', async () => {
      const sent: Delta[] = [];
      const coalescer = new DeltaCoalescer((event) => sent.push(event), { windowMs: 0 });
      coalescer.push(text('a'));
      coalescer.push(text('b'));
      await new Promise((resolve) => setImmediate(resolve));
      coalescer.push(text('c'));
      await new Promise((resolve) => setImmediate(resolve));
      expect(sent).toEqual([text('ab'), text('c')]);
    });
  });
});
