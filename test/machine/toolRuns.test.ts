/**
 * The tool-run helpers build each changed run field by field (a spread followed by new fields is
 * slow on Node 20). These tests pin what a spread gave for free: untouched runs keep their
 * identity, unchanged fields carry over, and no field is added as `undefined` (a snapshot's JSON
 * and deep equality would both see it).
 */
import { describe, expect, it } from 'vitest';
import type { ToolRun } from '../../src/index.js';
import {
  closeOpenRuns,
  errorOutcome,
  settleToolRuns,
  updateRun,
} from '../../src/machine/toolRuns.js';
import { createInitialContext } from '../../src/machine/context.js';
import { call } from '../support/events.js';

const ok = { status: 'success', output: 'done' } as const;

describe('updateRun', () => {
  const runs: ToolRun[] = [
    { call: call('t1', 'bash'), status: 'running', progress: { percent: 40 } },
    { call: call('t2', 'read_file'), status: 'running' },
  ];

  it('changes only the named call and keeps the others as they were', () => {
    const next = updateRun(runs, 't1', { status: 'done', outcome: ok });
    expect(next[1]).toBe(runs[1]);
    expect(next[0]).toEqual({
      call: runs[0]!.call,
      status: 'done',
      outcome: ok,
      progress: { percent: 40 },
    });
    expect(runs[0]).toEqual({ call: runs[0]!.call, status: 'running', progress: { percent: 40 } });
  });

  it('adds no field as undefined', () => {
    const next = updateRun(runs, 't2', { progress: 'halfway' });
    expect(Object.keys(next[1]!)).toEqual(['call', 'status', 'progress']);
    expect(Object.keys(updateRun(runs, 't2', { status: 'done' })[1]!)).toEqual(['call', 'status']);
  });

  it('clears a field that the change sets to undefined explicitly', () => {
    const next = updateRun(runs, 't1', { progress: undefined });
    expect('progress' in next[0]!).toBe(false);
  });
});

describe('closeOpenRuns', () => {
  it('closes every open run with the outcome and leaves done runs untouched', () => {
    const done: ToolRun = { call: call('t1', 'bash'), status: 'done', outcome: ok };
    const waiting: ToolRun = { call: call('t2', 'bash'), status: 'awaitingApproval' };
    const outcome = errorOutcome('interrupted');
    const [first, second] = closeOpenRuns([done, waiting], outcome);
    expect(first).toBe(done);
    expect(second).toEqual({ call: waiting.call, status: 'done', outcome });
  });
});

describe('settleToolRuns', () => {
  it('starts allowed calls, fails denied ones with the reason, and asks about the rest', () => {
    const context = {
      ...createInitialContext({ config: { permissions: { mode: 'default' } } }),
      toolRuns: [
        { call: call('t1', 'read_file'), status: 'pending' },
        { call: call('t2', 'edit_file'), status: 'pending' },
        { call: call('t3', 'bash'), status: 'done', outcome: ok },
        { call: call('t4', 'bash'), status: 'pending' },
      ] satisfies ToolRun[],
      rememberedDecisions: { edit_file: 'deny' as const },
    };
    const plan = settleToolRuns(context);
    expect(plan.start).toEqual([call('t1', 'read_file')]);
    expect(plan.ask).toEqual([call('t4', 'bash')]);
    expect(plan.runs[0]).toEqual({ call: call('t1', 'read_file'), status: 'running' });
    expect(plan.runs[1]).toMatchObject({ status: 'done', outcome: { status: 'error' } });
    expect(plan.runs[2]).toBe(context.toolRuns[2]);
    expect(plan.runs[3]).toEqual({ call: call('t4', 'bash'), status: 'awaitingApproval' });
  });
});
