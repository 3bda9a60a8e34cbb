/** Where an input goes next (activities/pipeline/advance.ts) and the workflow's counts (workflows/pipeline/run.ts). Pure. */
import { describe, expect, it } from 'vitest';
import { PipelineDefinition, type StageOutcome } from '../../contracts';
import { advance, settle, stageEnding } from '../../activities/pipeline/advance';
import { type InputContext } from '../../activities/pipeline/types';
import { applyStep, newCarry, stageDrained } from '../../workflows/pipeline/run';

const def = PipelineDefinition.parse({
  name: 'unit',
  stages: [
    { name: 'pages', endpoint: 'ocr', each: '$.input.pages', input: "{ 'url': $item, 'i': $index }" },
    {
      name: 'fields',
      endpoint: 'x',
      when: "$count($.pages[status = 'COMPLETED']) > 0",
      input: "{ 'n': $count($.pages) }",
    },
  ],
  output: "{ 'n': $.fields.output.n }",
});
const ctxOf = (line: unknown, index = 0): InputContext => ({ index, line: line as InputContext['line'], at: 0, s: {} });
const done = (status: StageOutcome['status'], output?: unknown): StageOutcome => ({
  status,
  attempts: 1,
  jobIds: ['j'],
  ...(output !== undefined ? { output } : {}),
});

describe('advance', () => {
  it('fans out one row per element, gathers them in order, then goes on or ends', async () => {
    const ctx = ctxOf({ pages: ['a', 'b'] }, 7);
    expect(await advance(def, ctx, 0)).toEqual({
      stage: 0,
      rows: [
        { input: { url: 'a', i: 0 }, p: [7, 0, 2] },
        { input: { url: 'b', i: 1 }, p: [7, 1, 2] },
      ],
    });
    expect(settle(ctx, 'pages', 1, done('COMPLETED', 'B'))).toBe(false);
    expect(settle(ctx, 'pages', 0, done('FAILED'))).toBe(true);
    expect(stageEnding(ctx, 'pages')).toBeUndefined(); // one element completed: the next `when` decides
    expect(await advance(def, ctx, 1)).toEqual({ stage: 1, rows: [{ input: { n: 2 }, p: [7, -1, 1] }] });
    settle(ctx, 'fields', -1, done('COMPLETED', { n: 2 }));
    expect(stageEnding(ctx, 'fields')).toBeUndefined();
    expect(await advance(def, ctx, 2)).toEqual({ end: { status: 'COMPLETED', output: { n: 2 } } });
  });

  it('every element failed ends the input FAILED at the stage; a false when ends it SKIPPED', async () => {
    const ctx = ctxOf({ pages: ['a'] });
    await advance(def, ctx, 0);
    settle(ctx, 'pages', 0, { ...done('FAILED'), error: 'boom' });
    expect(stageEnding(ctx, 'pages')).toEqual({ status: 'FAILED', stage: 'pages', error: 'boom' });
    const empty = ctxOf({ pages: [] });
    // No element: the stage is passed with [], and `fields`' when is false.
    expect(await advance(def, empty, 0)).toEqual({ end: { status: 'SKIPPED', stage: 'fields' } });
    expect(empty.s.pages).toEqual([]);
  });

  it('an expression error ends the input at its stage with its code; a stopped pipeline submits nothing more', async () => {
    const bad = await advance(def, ctxOf({ pages: 'one' }), 0);
    expect(bad).toMatchObject({ end: { status: 'FAILED', stage: 'pages', errorType: 'NOT_ARRAY' } });
    expect(await advance(def, ctxOf({ pages: ['a'] }), 0, 'deadline')).toEqual({
      end: { status: 'NOT_SUBMITTED', stage: 'pages', error: 'deadline' },
    });
  });
});

describe('the pipeline run', () => {
  it('counts inputs entering and leaving stages; a stage closes once nothing can enter it', () => {
    const r = newCarry(0);
    r.stages = [0, 1].map(() => ({
      run: { workflowId: 'w', runId: 'r' },
      feed: { line: 0, offset: 0 },
      fed: 0,
      active: 0,
      closed: false,
    }));
    applyStep(r, {
      stages: [
        { feed: { line: 3, offset: 30 }, entered: 2, left: 0, fed: 3 },
        { feed: { line: 0, offset: 0 }, entered: 0, left: 0, fed: 0 },
      ],
      read: { cursor: { line: 3, offset: 40 }, eof: true, lines: 3 },
      ended: { BAD_INPUT: 1 },
    });
    expect(r).toMatchObject({ read: 3, done: 1, eof: true, byStatus: { BAD_INPUT: 1 } });
    expect(r.stages[0]).toMatchObject({ active: 2, fed: 3, feed: { line: 3, offset: 30 } });
    expect(stageDrained(r, 0)).toBe(true);
    expect(stageDrained(r, 1)).toBe(false);
    applyStep(r, {
      stages: [
        { feed: { line: 3, offset: 30 }, after: 'seg', entered: 0, left: 2, fed: 0 },
        { feed: { line: 2, offset: 20 }, entered: 2, left: 0, fed: 2 },
      ],
      ended: {},
    });
    expect(stageDrained(r, 1)).toBe(true);
    expect(r.stages[0]!.after).toBe('seg');
  });
});
