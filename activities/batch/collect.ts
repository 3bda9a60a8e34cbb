/**
 * The collecting end of a batch step: keeps the window full from the inbox while jobs complete
 * (refill), waits for finished jobs, and writes the finished records as the step's completion segment.
 */
import { batchKeys } from '../../contracts/names';
import { type JobRecord, type JobSubmission } from '../../contracts';
import { runEndOf } from '../../results/outcome';
import { type ObjectStore } from '../../results/store/object-store';
import { type InboxReader } from '../../results/batch/inbox';
import { type BatchInput } from '../../results/batch/locations';
import { type Submitter } from './submitter';
import { type StepSends } from './detached';
import { type Completion, type LineRef, type StepRequest, type StepResult } from './types';
import { beat, safeContext } from '../heartbeat';

/** Most finished jobs one step collects while refilling (bounds its result in history). */
const MAX_REFILL_COLLECT = 1000;
/** How often a refill with free slots reads an open feed again (a pipeline's stage: its rows come while it runs). */
const FEED_POLL_MS = 250;
/**
 * How long an open feed's refill stays with every job done and nothing new in its feed before it
 * ends, at least: rows that come within it run without a step; a small pipeline's stage ends its
 * step soon after its last job. A refill that has run longer waits up to half of its time so far
 * (steady work keeps the long refill: fewer steps, fewer history events per input).
 */
const IDLE_MS = 400;

/**
 * The step's polls answered while it refills: `onFind` is called at the next job they find done,
 * or at their end (once); the refill goes on past its time while they are `pending` (the step
 * waits for them anyway: sending meanwhile keeps the window full).
 */
export interface PollsUnderWay {
  onFind(wake: () => void): void;
  pending(): boolean;
}

/**
 * Keeps the window full for `refillMs`: every COMPLETED job taken from the inbox (or found by the step's polls) frees its slot,
 * and the next line of the file is submitted in its place, until the file's last line is sent.
 * Other outcomes wait for the workflow (it decides about retries). An open feed (`feed`: the room the step's read left, its end
 * reached first, and the jobs held as the refill starts) is read again at its end while slots are free: it may have grown.
 * An open feed's refill ends as soon as every job it holds is done and the feed has nothing new: nothing is left for it
 * to wait for, and the finished jobs' outcomes go on at once (a small pipeline's stages wait on no timer).
 * `once`: a single pass, no wait: the slots of the finished jobs the inbox holds now are refilled, and it returns.
 */
export async function refill(
  inbox: InboxReader,
  input: BatchInput,
  req: StepRequest,
  res: StepResult,
  sub: Submitter,
  sends: StepSends,
  finished: JobRecord[],
  parsed: (ref: LineRef, text: string) => JobSubmission | undefined,
  outranked: () => boolean,
  keep?: (index: number) => boolean,
  feed?: { spare: number; held?: number },
  polls?: PollsUnderWay,
  once = false,
): Promise<void> {
  const until = Date.now() + req.collect.refillMs!;
  let room = feed?.spare ?? 0;
  const seen = new Set<string>();
  // Jobs held and not seen finished (any status: a job that failed waits for the workflow, not for the refill).
  let held = feed?.held;
  /** Takes finished jobs not seen yet; returns the slots they free (a COMPLETED job's). */
  const see = (records: readonly JobRecord[]): number => {
    let freed = 0;
    for (const r of records) {
      if (seen.has(r.id)) continue;
      if (held !== undefined) held--;
      if (r.status === 'COMPLETED') freed++;
      seen.add(r.id);
    }
    return freed;
  };
  // `finished` also grows on its own: the step's polls (a dead daemon's jobs after a restart, late
  // jobs) answered meanwhile. A job they found done frees its slot too, as one heard of does.
  let scanned = finished.length;
  room += see(finished);
  const polledSince = (): number => {
    const freed = see(finished.slice(scanned));
    scanned = finished.length;
    return freed;
  };
  // Idle since (every job done, nothing new in the feed): the refill ends after IDLE_MS of it, or half its run so far.
  // (2,000-input bench, load 6-8: 400 ms gave 0.050 / 0.067 / 0.076 events per input, 750 ms no fewer.)
  let idleAt: number | undefined;
  const startedAt = Date.now();
  const idle = (): boolean => {
    if (held === undefined || held > 0) {
      idleAt = undefined;
      return false;
    }
    idleAt ??= Date.now();
    return Date.now() - idleAt >= Math.max(IDLE_MS, (idleAt - startedAt) / 2);
  };
  const sending: Promise<void>[] = [];
  // `once`: one pass over what the inbox holds now, without waiting (a retried step's, step.ts).
  let passes = 0;
  const going = (): boolean => (once ? passes++ === 0 : Date.now() < until || polls?.pending() === true);
  // Its submissions' journal entries share appends (one job is sent at a time as slots free): all durable before it returns.
  sub.group();
  while (going() && finished.length < MAX_REFILL_COLLECT && !sub.limited && !outranked()) {
    // An open feed with free slots is looked at again every FEED_POLL_MS: rows written meanwhile run at once.
    // A poll's find wakes it too (its slot is free).
    if (!once) {
      const found = new AbortController();
      polls?.onFind(() => found.abort());
      const left = Math.max(FEED_POLL_MS, until - Date.now());
      await inbox.wait(1, feed && room > 0 ? Math.min(FEED_POLL_MS, left) : left, found.signal);
    }
    const took = await inbox.take();
    room += polledSince() + see(took);
    finished.push(...took);
    scanned = finished.length;
    if (room === 0 || (res.read!.eof && !feed)) {
      if (idle()) break;
      continue;
    }
    beat({ seq: req.seq, phase: 'refill' });
    const page = await input.readLines(res.read!.cursor, room, keep);
    const send: { ref: LineRef; body: JobSubmission }[] = [];
    for (const line of page.lines) {
      const ref: LineRef = { i: line.i, o: line.o, l: line.l };
      const body = parsed(ref, line.text);
      if (body) send.push({ ref, body });
    }
    // Sent on their own: the loop goes on taking finished jobs while a slow answer is awaited.
    room = Math.max(0, room - send.length);
    if (held !== undefined) held += send.length;
    const sent = sends.sendAll(send, () => beat({ seq: req.seq, phase: 'refill' }));
    sent.catch(() => undefined); // handled here; its failure fails the step below
    sending.push(sent);
    res.read = { cursor: page.cursor, eof: page.eof };
    // The file is all sent: nothing is left to refill with, so the step ends now and the workflow
    // waits for the last completions (issue 23: not out the rest of `refillMs`).
    if (page.eof && !feed) break;
    // Every job done and the feed has nothing new (for IDLE_MS): nothing left to wait for.
    if (send.length > 0) idleAt = undefined;
    else if (idle()) break;
  }
  const flushed = sub.ungroup();
  await Promise.all([...sending, flushed]);
  res.rateLimited = sub.rateLimited;
}

/**
 * Waits up to `waitMs` for `req.collect.min` finished jobs when none came by polling (heartbeating
 * meanwhile), then takes what the inbox holds; without an inbox (a batch that polls) it only waits.
 */
export async function awaitFinished(
  inbox: InboxReader | undefined,
  req: StepRequest,
  waitMs: number,
  finished: JobRecord[],
  wake?: Promise<void>,
): Promise<void> {
  if (inbox) {
    if (waitMs > 0 && finished.length === 0)
      await waitBeating(inbox, req, req.collect.min, waitMs, req.collect.linger, wake);
    finished.push(...(await inbox.take()));
  } else if (waitMs > 0 && finished.length === 0) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => (timer = setTimeout(r, waitMs))), ...(wake ? [wake] : [])]);
    clearTimeout(timer);
  }
}

/**
 * The step that sent the file's last line collects on, as the next step would have (`collect.last`):
 * up to its `waitMs` for the `rest` of the jobs held, lingering `linger` after the first arrives.
 */
export async function awaitLast(
  inbox: InboxReader,
  req: StepRequest,
  rest: number,
  finished: JobRecord[],
): Promise<void> {
  const { waitMs, linger } = req.collect.last!;
  await waitBeating(inbox, req, rest, waitMs, linger);
  finished.push(...(await inbox.take()));
}

/** The inbox's wait for `min` records, heartbeating the step meanwhile; ended early by the activity's cancellation or `wake`. */
async function waitBeating(
  inbox: InboxReader,
  req: StepRequest,
  min: number,
  waitMs: number,
  linger: number | undefined,
  wake?: Promise<void>,
): Promise<void> {
  const ctx = safeContext();
  const timer = setInterval(() => beat({ seq: req.seq, phase: 'collect' }), 3000);
  const woken = new AbortController();
  void wake?.then(() => woken.abort());
  const signals = [woken.signal, ...(ctx ? [ctx.cancellationSignal] : [])];
  try {
    await inbox.wait(min, waitMs, AbortSignal.any(signals), linger);
  } finally {
    clearInterval(timer);
  }
}

/**
 * Writes the finished records (with outputs) as the step's completion segment; returns their
 * summaries. `polled`: the records of `/status` polls the workflow ordered (marked `q`, and kept over
 * another record of the same run: they read the job's current run).
 */
export async function collected(
  store: ObjectStore,
  req: StepRequest,
  records: JobRecord[],
  polled: ReadonlySet<JobRecord> = new Set(),
): Promise<Completion[]> {
  if (records.length === 0) return [];
  const byRun = new Map<string, JobRecord>();
  for (const r of records) {
    const key = `${r.id}#${r.retries ?? 0}`;
    const had = byRun.get(key);
    if (!had || !polled.has(had)) byRun.set(key, r);
  }
  const unique = [...byRun.values()];
  await store.putLines(batchKeys.completions(req.run, req.seq), unique);
  return unique.map((r, n) => {
    const c: Completion = { id: r.id, r: typeof r.retries === 'number' ? r.retries : 0, s: r.status, n };
    if (polled.has(r)) c.q = 1;
    const end = runEndOf(r, 500);
    if (end.error !== undefined) c.e = end.error;
    if (end.errorType !== undefined) c.et = end.errorType;
    if (end.executionTime !== undefined) c.x = end.executionTime;
    if (end.delayTime !== undefined) c.d = end.delayTime;
    return c;
  });
}
