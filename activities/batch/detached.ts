/**
 * Late answers without head-of-line blocking: a step sends its first submissions, waits for their
 * answers only briefly at its end, and hands the unanswered ones on as *submitting* (never sent
 * again while their answer may come). The calls go on in the daemon; each answer is journaled in
 * the step's submit journal and reported by a later step. docs/batch.md "Late answers" has the rule.
 */
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { runKey } from '../../contracts/names';
import { type JobSubmission, type RunScope } from '../../contracts';
import { type Lane } from './lanes';
import { type Submitted, type Submitter } from './submitter';
import { type LineRef, type Submitting } from './types';

/** How long a step waits at its end for its unanswered submissions, ms (then they are handed on). */
export const PATIENCE_MS = 250;
/** A call still unanswered this long after its step ended is abandoned (aborted), ms. */
export const DETACHED_MS = 10_000;
/** Time left after the deadline for the answer's journal append, ms (another daemon reads the journal). */
export const GRACE_MS = 2000;

/** What a detached call came to: answered, refused for good, never sent (deferred), or abandoned / failed (lost). */
export type Settled = { id: string; dup?: boolean } | { error: string } | 'deferred' | 'lost';

interface Entry {
  settled?: Settled;
}

/**
 * How long a detached call's answer is kept once a step reported it, ms: a retried attempt of that step reports it
 * again from memory. Forgotten after, a report finds it 'lost' (sent again under its idempotency key: the same job).
 */
export const REPORTED_KEPT_MS = 60_000;

/** The daemon's memory of its detached calls, by batch run and input index; `id` names this daemon process. */
export class DetachedSubmissions {
  readonly id = randomBytes(6).toString('hex');
  private readonly runs = new Map<string, Map<number, Entry>>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** The answers steps reported, oldest first: forgotten {@link REPORTED_KEPT_MS} later (a batch's memory stays flat). */
  private readonly reports: { key: string; i: number; at: number }[] = [];
  private reportsHead = 0;

  /** Input `i` of `run` is now detached (its call runs on). */
  hold(run: RunScope, i: number): void {
    this.of(runKey(run)).set(i, {});
  }

  /** A step reported the answer of input `i`'s detached call: kept a while for a retried attempt, then forgotten. */
  reported(run: RunScope, i: number, now = Date.now()): void {
    this.reports.push({ key: runKey(run), i, at: now });
    while (this.reportsHead < this.reports.length && now - this.reports[this.reportsHead]!.at >= REPORTED_KEPT_MS) {
      const r = this.reports[this.reportsHead++]!;
      const m = this.runs.get(r.key);
      if (m?.get(r.i)?.settled !== undefined) m.delete(r.i);
    }
    if (this.reportsHead > 1024 && this.reportsHead * 2 > this.reports.length) {
      this.reports.splice(0, this.reportsHead);
      this.reportsHead = 0;
    }
  }

  /** What the detached call of input `i` came to (undefined: still running; 'lost' when this daemon never held it). */
  get(run: RunScope, i: number): Settled | undefined {
    const e = this.runs.get(runKey(run))?.get(i);
    return e ? e.settled : 'lost';
  }

  settle(run: RunScope, i: number, s: Settled): void {
    const key = runKey(run);
    const e = this.runs.get(key)?.get(i);
    if (!e || e.settled) return;
    e.settled = s;
    for (const w of this.waiters.get(key) ?? []) w();
    this.waiters.delete(key);
  }

  /** Resolves at the next answer of a detached call of `run`. */
  next(run: RunScope): Promise<void> {
    const key = runKey(run);
    return new Promise((r) => this.waiters.set(key, [...(this.waiters.get(key) ?? []), r]));
  }

  /** Forgets `run` (it ended). */
  drop(run: RunScope): void {
    this.runs.delete(runKey(run));
    this.waiters.delete(runKey(run));
  }

  private of(key: string): Map<number, Entry> {
    let m = this.runs.get(key);
    if (!m) this.runs.set(key, (m = new Map()));
    return m;
  }
}

/** What a step's sending needs. */
export interface StepSendsDeps {
  run: RunScope;
  seq: number;
  sub: Submitter;
  /** Records an answer known while the step runs. */
  record: (ref: LineRef, r: Submitted) => void;
  /** May the step end before its submissions answer (`dt`), and the daemon's memory of them. */
  detach?: DetachedSubmissions;
  /** A detached call answered with remote job `id` (`dup`: an earlier submission's, maybe finished long ago). */
  answered: (id: string, dup?: boolean) => void;
}

/** The first submissions of one step: sent in lanes, and at its end waited for briefly, then handed on. */
export class StepSends {
  private readonly open = new Map<number, LineRef>();
  /** Inputs whose job its webhook made known before the call answered (their answer changes nothing). */
  private readonly byHook = new Set<number>();
  /** Inputs whose call began (the others, at the step's end, were never sent). */
  private readonly started = new Set<number>();
  private readonly running: Promise<void>[] = [];
  private ended = false;
  /** Abandons this step's calls still unanswered; every lane's call listens to it (no listener cap: they are bounded by the lanes). */
  private readonly abort = unlimited(new AbortController());
  /** The lines given to {@link sendAll} so far (answered, refused, unanswered or never sent). */
  lines = 0;

  constructor(private readonly d: StepSendsDeps) {}

  /** Sends `items` (lanes: Submitter.each); without detaching, resolves once all answered, else at once. */
  async sendAll(items: { ref: LineRef; body: JobSubmission }[], beat: () => void): Promise<void> {
    if (items.length === 0) return;
    this.lines += items.length;
    const { sub } = this.d;
    if (!this.d.detach) {
      await sub.each(
        items,
        async ({ ref, body }, lane) => this.d.record(ref, await sub.submit(ref.i, body, 1, 'submit', { lane })),
        beat,
      );
      return;
    }
    for (const { ref } of items) this.open.set(ref.i, ref);
    const sending = sub.each(items, ({ ref, body }, lane) => this.send(ref, body, lane), beat);
    // Handled here: a failure before the end fails the step in end(); a step that failed earlier
    // (a poll or a store write threw) never awaits it, and an unhandled rejection would end the daemon.
    sending.catch(() => undefined);
    this.running.push(sending);
  }

  /**
   * The step ends: waits up to {@link PATIENCE_MS} for the submissions still unanswered, then hands
   * them on (returned as `submitting`); their calls run on, abandoned after {@link DETACHED_MS}.
   * Those whose call never started are this step's own deferred lines (sent again by the next).
   */
  async end(): Promise<Submitting[]> {
    const { detach, run, seq, sub } = this.d;
    if (!detach || this.running.length === 0) return [];
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<void>((r) => (timer = setTimeout(r, PATIENCE_MS)));
    await Promise.race([Promise.all(this.running), patience]).finally(() => clearTimeout(timer));
    this.ended = true;
    for (const [i, ref] of this.open) {
      if (this.started.has(i)) continue;
      this.open.delete(i);
      this.d.record(ref, undefined);
    }
    if (this.open.size === 0) return [];
    // Held before the journal's flush: a call that settles meanwhile (answered, refused, withdrawn)
    // must find its entry, or its end is dropped and a later step waits for it until its deadline.
    const handed = [...this.open.values()];
    for (const ref of handed) detach.hold(run, ref.i);
    await sub.flush();
    setTimeout(() => this.abort.abort(new Error('abandoned: no answer')), DETACHED_MS).unref();
    const dl = Date.now() + DETACHED_MS;
    return handed.map((ref) => ({ ...ref, q: seq, dm: detach.id, dl }));
  }

  /**
   * This step's submissions still unanswered whose job's webhook came (its URL names the input:
   * `jobs`, input to job id): answered by it, not handed on; the call's own answer comes to nothing.
   */
  byWebhook(jobs: Map<number, string>): void {
    for (const [i, id] of jobs) {
      const ref = this.open.get(i);
      if (!ref || this.ended) continue;
      this.open.delete(i);
      this.byHook.add(i);
      this.d.record(ref, this.d.sub.bound(i, 1, id));
    }
  }

  private async send(ref: LineRef, body: JobSubmission, lane: Lane): Promise<void> {
    const { sub } = this.d;
    if (this.ended) return; // never started: end() reported it deferred
    this.started.add(ref.i);
    let r: Submitted | 'lost';
    try {
      r = await sub.submit(ref.i, body, 1, 'submit', { signal: this.abort.signal, lane });
    } catch (err) {
      if (!this.ended) {
        this.open.delete(ref.i);
        throw err;
      }
      r = 'lost';
    }
    if (this.byHook.has(ref.i)) return;
    if (!this.ended) {
      this.open.delete(ref.i);
      this.d.record(ref, r as Submitted);
      return;
    }
    if (r !== 'lost' && r !== undefined && !('error' in r)) await sub.flush().catch(() => (r = 'lost'));
    this.settle(ref, r);
  }

  private settle(ref: LineRef, r: Submitted | 'lost'): void {
    // Settled already (a later step matched its job by webhook): the answer comes to nothing.
    if (this.d.detach!.get(this.d.run, ref.i) !== undefined) return;
    const s: Settled =
      r === 'lost'
        ? 'lost'
        : r === undefined
          ? 'deferred'
          : 'error' in r
            ? r
            : { id: r.id, ...(r.dup ? { dup: true } : {}) };
    if (typeof s === 'object' && 'id' in s) this.d.answered(s.id, s.dup);
    this.d.detach!.settle(this.d.run, ref.i, s);
  }
}

/** An AbortController whose signal takes any number of listeners (one per call in flight). */
function unlimited(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
