/** What a pipeline adds to its stages' pulled backlogs: the inputs not fed to each stage yet (not read, or at an earlier stage). */
import { describe, expect, it } from 'vitest';
import { pipelineUpstream } from '../../activities/scaler/backlog';
import { type PipelineState } from '../../contracts';

const state = (o: Partial<PipelineState> & { active?: number[] } = {}): PipelineState => {
  const { active = [3, 2, 0], ...rest } = o;
  return {
    pipelineId: 'p',
    name: 'p',
    phase: 'running',
    counts: { total: 100, read: 20, inFlight: 5, done: 15, byStatus: {} },
    inputDone: false,
    stages: active.map((a, k) => ({
      name: `s${k}`,
      endpointId: `e${k}`,
      batchId: `batch/pipeline/p/s${k}`,
      fed: 10,
      active: a,
      closed: false,
    })),
    startedAt: 0,
    runs: 1,
    outDir: '/out',
    ...rest,
  };
};

describe('pipelineUpstream', () => {
  it('each stage: the lines not read, and the inputs at every earlier stage', () => {
    expect(pipelineUpstream(state())).toEqual(
      new Map([
        ['batch/pipeline/p/s0', 80],
        ['batch/pipeline/p/s1', 83],
        ['batch/pipeline/p/s2', 85],
      ]),
    );
  });

  it('the whole file read: only the inputs at earlier stages; a stage with none upstream is left out', () => {
    const s = state({ counts: { total: 20, read: 20, inFlight: 5, done: 15, byStatus: {} }, active: [0, 4, 1] });
    expect(pipelineUpstream(s)).toEqual(new Map([['batch/pipeline/p/s2', 4]]));
  });

  it('nothing once it stopped submitting (cost cap, deadline, cancel) or while it finishes', () => {
    expect(pipelineUpstream(state({ stopped: 'cost-cap' }))).toEqual(new Map());
    expect(pipelineUpstream(state({ phase: 'finishing' }))).toEqual(new Map());
    expect(pipelineUpstream(state({ phase: 'paused' })).get('batch/pipeline/p/s1')).toBe(83);
  });
});
