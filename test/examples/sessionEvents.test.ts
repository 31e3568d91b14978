/**
 * The HTTP example's event logs: a log made again for a session, after the old one was forgotten
 * while idle, numbers its events after the ones clients already saw, so a client reconnecting with
 * its last id misses nothing.
 */
import { describe, expect, it } from 'vitest';
import { eventIds, SessionEvents } from '../../examples/http-service/sessionEvents.js';

describe('session event logs', () => {
  it('number the events of a log made again after the ids of the one it replaces', () => {
    const nextId = eventIds();
    const ids: number[] = [];
    for (let round = 0; round < 2; round++) {
      const log = new SessionEvents(() => undefined, 60_000, nextId);
      // The recorded ids are read back through a fake client that keeps what it is sent.
      const sent: string[] = [];
      const client = {
        writeHead: () => client,
        flushHeaders: () => undefined,
        write: (chunk: string) => sent.push(chunk),
        on: () => client,
        end: () => undefined,
      };
      log.record('text', { text: `round ${round}` });
      log.record('turnEnd', { state: 'WaitingForUserInput' });
      log.subscribe(client as never, 0);
      ids.push(...sent.map((chunk) => Number(/^id: (\d+)/.exec(chunk)?.[1])));
      log.close({ state: 'ShuttingDown' });
    }
    expect(ids).toHaveLength(4);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(4);
  });
});
