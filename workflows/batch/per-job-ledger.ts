/**
 * The bookkeeping of a batch's `--per-job-workflows` mode, pure: what it carries across
 * continue-as-new, which read lines start next (window, key caps), a child's input (its line by
 * reference), a child's result or failure as the input's one outcome (its state query is state.ts).
 */
import { ApplicationFailure, ChildWorkflowFailure, TemporalFailure, isCancellation } from '@temporalio/workflow';
import { FailureType, JOB_END_FAILURE } from '../../contracts/names';
import type {
  BatchCounts,
  BatchOutcomeStatus,
  BatchWorkflowInput,
  JobWorkflowInput,
  JobWorkflowResult,
  WaitReason,
} from '../../contracts';
import type { ChildFinal } from '../../activities/batch/children';
import type { Cursor, LineRef } from '../../activities/batch/types';
import { emptyCounts } from './ledger';
import { type Controls } from './controls';

/** Children in flight at most, whatever the concurrency (Temporal allows 2,000 pending children). */
export const MAX_CHILD_WINDOW = 1000;

/** Everything the mode carries from one run to the next (the window is drained first). */
export interface ChildLedger {
  cursor: Cursor;
  eof: boolean;
  /** Lines read and not started yet (window full, or their key at its cap). */
  pending: LineRef[];
  /** Outcomes decided, not written yet. */
  finals: ChildFinal[];
  counts: BatchCounts;
  /** Sum of executionTime of every remote run (ms), for the spend estimate. */
  execMs: number;
  seq: number;
  lastErrors: { index: number; error: string }[];
}

/** What the batch carries into its next run (continue-as-new) in this mode. */
export interface ChildrenCarry {
  children: ChildLedger;
  controls: Controls;
  startedAt: number;
  runs: number;
  total: number;
  pricePerHour?: number;
}

/** A child in flight: its line's key, when it started, its first run id once started. */
export interface Running {
  k?: string;
  t0: number;
  cr?: string;
}

export function newChildLedger(): ChildLedger {
  return {
    cursor: { line: 0, offset: 0 },
    eof: false,
    pending: [],
    finals: [],
    counts: emptyCounts(),
    execMs: 0,
    seq: 0,
    lastErrors: [],
  };
}

/** Children the window holds at most now. */
export const windowOf = (c: Controls): number => Math.min(c.concurrency, MAX_CHILD_WINDOW);

/** Takes from `pending` the lines that may start now (room in the window, room for their key). */
export function pickStarts(d: ChildLedger, running: Map<number, Running>, c: Controls): LineRef[] {
  let room = windowOf(c) - running.size;
  if (room <= 0) return [];
  const keys = new Map<string, number>();
  for (const r of running.values()) if (r.k !== undefined) keys.set(r.k, (keys.get(r.k) ?? 0) + 1);
  const starts: LineRef[] = [];
  d.pending = d.pending.filter((l) => {
    if (room <= 0) return true;
    if (c.keyLimit !== undefined && l.k !== undefined && (keys.get(l.k) ?? 0) >= c.keyLimit) return true;
    starts.push(l);
    room--;
    if (l.k !== undefined) keys.set(l.k, (keys.get(l.k) ?? 0) + 1);
    return false;
  });
  return starts;
}

/** The child job workflow's input: the line by reference, outputs always to the results store. */
export function childInput(input: BatchWorkflowInput, ref: LineRef): JobWorkflowInput {
  const o = input.options;
  return {
    endpointId: input.endpointId,
    input: {},
    options: {
      retry: o.retry,
      completion: o.completion,
      polling: o.polling,
      stream: false,
      syncWaitMs: 0,
      inlineOutputLimitBytes: 0,
      resultRetentionMs: o.resultRetentionMs,
    },
    line: {
      source: input.source,
      index: ref.i,
      offset: ref.o,
      length: ref.l,
      format: o.inputFormat,
      ...(o.policy ? { policy: o.policy } : {}),
    },
  };
}

/** Records the one outcome of an input. */
export function finalize(d: ChildLedger, f: ChildFinal, execMs = 0, retries = 0): void {
  d.finals.push(f);
  d.execMs += execMs;
  d.counts.retries += retries;
  d.counts.done++;
  d.counts.byStatus[f.s] = (d.counts.byStatus[f.s] ?? 0) + 1;
  if (f.e !== undefined && f.s !== 'COMPLETED') {
    d.lastErrors.push({ index: f.i, error: f.e.slice(0, 300) });
    if (d.lastErrors.length > 5) d.lastErrors.shift();
  }
}

/** The outcome of a child that returned or failed with its job's result; with its spend and retries. */
export function finalOfResult(
  ref: LineRef,
  run: Running,
  r: JobWorkflowResult,
  now: number,
): { f: ChildFinal; execMs: number; retries: number } {
  const ids = [...new Set(r.attempts.map((a) => a.remoteJobId))];
  const f: ChildFinal = { i: ref.i, s: r.status as BatchOutcomeStatus, a: r.attempts.length, ids, t0: run.t0, t1: now };
  if (r.error !== undefined) f.e = r.error.slice(0, 2000);
  if (r.errorType !== undefined) f.et = r.errorType;
  if (r.executionTime !== undefined) f.x = r.executionTime;
  if (r.delayTime !== undefined) f.d = r.delayTime;
  if (r.outputRef) f.out = r.outputRef.key;
  if (r.status !== 'COMPLETED') {
    f.o = ref.o;
    f.l = ref.l;
  }
  if (ids.length === 0 && run.cr !== undefined) f.cr = run.cr;
  const execMs = r.attempts.reduce((sum, a) => sum + (a.executionTime ?? 0), 0);
  return { f, execMs, retries: Math.max(0, r.attempts.length - 1) };
}

/** The outcome of a child that failed: its job's result when it carries one, else CANCELLED, JOB_EXPIRED or FAILED. */
export function finalOfFailure(
  ref: LineRef,
  run: Running,
  err: unknown,
  now: number,
): { f: ChildFinal; execMs: number; retries: number } {
  const cause = err instanceof ChildWorkflowFailure ? err.cause : err;
  const app = appFailure(cause);
  const ends: string[] = Object.values(JOB_END_FAILURE);
  if (app?.type && ends.includes(app.type) && isResult(app.details?.[0]))
    return finalOfResult(ref, run, app.details[0], now);
  let s: BatchOutcomeStatus = 'FAILED';
  if (isCancellation(err) || isCancellation(cause)) s = 'CANCELLED';
  else if (app?.type === FailureType.JOB_EXPIRED) s = FailureType.JOB_EXPIRED;
  const f: ChildFinal = { i: ref.i, s, a: 0, ids: [], t0: run.t0, t1: now, o: ref.o, l: ref.l };
  if (s !== 'CANCELLED') f.e = (app?.message ?? (err instanceof Error ? err.message : String(err))).slice(0, 2000);
  if (app?.type && s === 'FAILED') f.et = app.type;
  if (run.cr !== undefined) f.cr = run.cr;
  return { f, execMs: 0, retries: 0 };
}

function appFailure(err: unknown): ApplicationFailure | undefined {
  for (let e = err; e instanceof TemporalFailure || e instanceof Error; e = (e as Error).cause) {
    if (e instanceof ApplicationFailure) return e;
    if (!(e instanceof Error)) break;
  }
  return undefined;
}

const isResult = (v: unknown): v is JobWorkflowResult =>
  typeof v === 'object' && v !== null && 'status' in v && Array.isArray((v as { attempts?: unknown }).attempts);

/** Why no child starts right now. */
export function waitingOf(
  d: ChildLedger,
  running: Map<number, Running>,
  c: Controls,
  blockers: WaitReason[],
): WaitReason[] {
  const why = [...blockers];
  const more = !d.eof || d.pending.length > 0;
  if (more && running.size >= windowOf(c)) why.push('window-full');
  else if (d.pending.length > 0 && c.keyLimit !== undefined) why.push('key-cap');
  if (!more) why.push('input-done');
  return why;
}
