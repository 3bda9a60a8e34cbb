/**
 * A pipeline's run as the workflow holds it: cursors and counts only (the input's reading, each
 * stage's feed end, last outcome segment and inputs at it), what it carries across
 * continue-as-new, and its state query. Pure.
 */
import { pipelineIdOf } from '../../contracts/names';
import type { PipelineState, PipelineWorkflowInput, RunScope, WaitReason } from '../../contracts';
import type { Cursor, PipelineStepResult } from '../../activities/pipeline/activities';

/** Why a pipeline stopped submitting once its `maxCost` was reached: the batch's own wait reason. */
export const COST_CAP: WaitReason = 'cost-cap';

/** One stage: its batch's run, its feed's end, the last outcome segment read, and its inputs. */
export interface StageRun {
  run: RunScope;
  feed: Cursor;
  after?: string;
  /** Rows fed so far. */
  fed: number;
  /** Inputs at the stage now. */
  active: number;
  /** The feed is closed (signalled to the batch). */
  closed: boolean;
  /** Feed lines the batch was told of, and rows whose outcomes were taken (a step of rounds tells the batch). */
  told?: number;
  taken?: number;
}

/** What a pipeline carries into its next run (continue-as-new); names recorded in history. */
export interface PipelineCarry {
  stages: StageRun[];
  cursor: Cursor;
  eof: boolean;
  total: number;
  read: number;
  done: number;
  byStatus: PipelineState['counts']['byStatus'];
  seq: number;
  startedAt: number;
  runs: number;
  paused: boolean;
  /** Why it submits no more (cancelled, deadline, cost-cap); inputs that would go on end NOT_SUBMITTED. */
  stopped?: string;
  /** The stages' spend as the last step that asked found it (a pipeline with `maxCost`). */
  spend?: number;
}

export interface PipelineRun extends PipelineCarry {
  input: PipelineWorkflowInput;
  workflowId: string;
  phase: PipelineState['phase'];
  endedAt?: number;
}

export const newCarry = (now: number): PipelineCarry => ({
  stages: [],
  cursor: { line: 0, offset: 0 },
  eof: false,
  total: 0,
  read: 0,
  done: 0,
  byStatus: {},
  seq: 0,
  startedAt: now,
  runs: 0,
  paused: false,
});

export const carryOf = (r: PipelineRun): PipelineCarry => {
  const { input: _i, workflowId: _w, phase: _p, endedAt: _e, ...carry } = r;
  return carry;
};

/** Inputs read and not ended: each is at one stage. */
export const inFlight = (r: PipelineCarry): number => r.read - r.done;

/** No input will enter stage `k` any more: the input is read (or the pipeline stopped) and none is at an earlier stage. */
export const stageDrained = (r: PipelineCarry, k: number): boolean =>
  (r.eof || r.stopped !== undefined) && r.stages.slice(0, k).every((s) => s.active === 0);

/** Takes a step's result: cursors, inputs entering and leaving each stage, inputs ended. */
export function applyStep(r: PipelineCarry, res: PipelineStepResult): void {
  res.stages.forEach((s, k) => {
    const st = r.stages[k]!;
    st.feed = s.feed;
    if (s.after !== undefined) st.after = s.after;
    st.fed += s.fed;
    st.active += s.entered - s.left;
    if (s.taken) st.taken = (st.taken ?? 0) + s.taken;
    if (s.told !== undefined) st.told = s.told;
  });
  if (res.read) {
    r.cursor = res.read.cursor;
    r.eof = res.read.eof;
    r.read += res.read.lines;
  }
  for (const [status, n] of Object.entries(res.ended) as [keyof PipelineCarry['byStatus'], number][]) {
    r.byStatus[status] = (r.byStatus[status] ?? 0) + n;
    r.done += n;
  }
  if (res.spend !== undefined) r.spend = Math.max(r.spend ?? 0, res.spend);
}

/** The state query (and, at the end, the summary). */
export function pipelineState(r: PipelineRun): PipelineState {
  const def = r.input.definition;
  return {
    pipelineId: pipelineIdOf(r.workflowId),
    name: def.name,
    phase: r.phase === 'running' && r.paused ? 'paused' : r.phase,
    counts: { total: r.total, read: r.read, inFlight: inFlight(r), done: r.done, byStatus: { ...r.byStatus } },
    inputDone: r.eof,
    stages: r.stages.map((s, k) => ({
      name: def.stages[k]!.name,
      endpointId: r.input.endpoints[k]!,
      batchId: s.run.workflowId,
      fed: s.fed,
      active: s.active,
      closed: s.closed,
    })),
    startedAt: r.startedAt,
    ...(r.endedAt !== undefined ? { endedAt: r.endedAt } : {}),
    runs: r.runs,
    outDir: r.input.outDir,
    ...(r.spend !== undefined ? { spend: r.spend } : {}),
    ...(def.maxCost !== undefined ? { maxCost: def.maxCost } : {}),
    ...(r.stopped !== undefined ? { stopped: r.stopped } : {}),
  };
}
