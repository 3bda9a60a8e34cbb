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
import { type ObjectStore } from '../../results/store/object-store';
import { batchKeys } from '../../contracts/names';
import { type Journaled, type Submitted, type Submitter } from './submitter';
import { type LineRef, type StepResult, type Submitting } from './types';

/** How long a step waits at its end for its unanswered submissions, ms (then they are handed on). */
export const PATIENCE_MS = 250;
/** A call still unanswered this long after its step ended is abandoned (aborted), ms. */
export const DETACHED_MS = 10_000;
/** Time left after the deadline for the answer's journal append, ms (another daemon reads the journal). */
export const GRACE_MS = 2000;

/** What a detached call came to: answered, refused for good, never sent (deferred), or abandoned / failed (lost). */
type Settled = { id: string; dup?: boolean } | { error: string } | 'deferred' | 'lost';

interface Entry {
  settled?: Settled;
}

/** The daemon's memory of its detached calls, by batch run and input index; `id` names this daemon process. */
export class DetachedSubmissions {
  readonly id = randomBytes(6).toString('hex');
  private readonly runs = new Map<string, Map<number, Entry>>();
  private readonly waiters = new Map<string, (() => void)[]>();

  /** Input `i` of `run` is now detached (its call runs on). */
  hold(run: RunScope, i: number): void {
    this.of(runKey(run)).set(i, {});
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
  /** A detached call answered with remote job `id` (its webhook may have come already: poll it soon). */
  answered: (id: string) => void;
}

/** The first submissions of one step: sent in lanes, and at its end waited for briefly, then handed on. */
export class StepSends {
  private readonly open = new Map<number, LineRef>();
  private readonly running: Promise<void>[] = [];
  private ended = false;
  /** Abandons this step's calls still unanswered; every lane's call listens to it (no listener cap: they are bounded by the lanes). */
  private readonly abort = unlimited(new AbortController());

  constructor(private readonly d: StepSendsDeps) {}

  /** Sends `items` (lanes: Submitter.each); without detaching, resolves once all answered, else at once. */
  async sendAll(items: { ref: LineRef; body: JobSubmission }[], beat: () => void): Promise<void> {
    if (items.length === 0) return;
    const { sub } = this.d;
    if (!this.d.detach) {
      await sub.each(
        items,
        async ({ ref, body }) => this.d.record(ref, await sub.submit(ref.i, body, 1, 'submit')),
        beat,
      );
      return;
    }
    for (const { ref } of items) this.open.set(ref.i, ref);
    const sending = sub.each(items, ({ ref, body }) => this.send(ref, body), beat);
    // Handled here: a failure before the end fails the step in end(); a step that failed earlier
    // (a poll or a store write threw) never awaits it, and an unhandled rejection would end the daemon.
    sending.catch(() => undefined);
    this.running.push(sending);
  }

  /**
   * The step ends: waits up to {@link PATIENCE_MS} for the submissions still unanswered, then hands
   * them on (returned as `submitting`); their calls run on, abandoned after {@link DETACHED_MS}.
   */
  async end(): Promise<Submitting[]> {
    const { detach, run, seq, sub } = this.d;
    if (!detach || this.running.length === 0) return [];
    let timer: NodeJS.Timeout | undefined;
    const patience = new Promise<void>((r) => (timer = setTimeout(r, PATIENCE_MS)));
    await Promise.race([Promise.all(this.running), patience]).finally(() => clearTimeout(timer));
    this.ended = true;
    if (this.open.size === 0) return [];
    await sub.flush();
    setTimeout(() => this.abort.abort(new Error('abandoned: no answer')), DETACHED_MS).unref();
    const dl = Date.now() + DETACHED_MS;
    return [...this.open.values()].map((ref) => {
      detach.hold(run, ref.i);
      return { ...ref, q: seq, dm: detach.id, dl };
    });
  }

  private async send(ref: LineRef, body: JobSubmission): Promise<void> {
    const { sub } = this.d;
    if (this.ended) return this.settle(ref, undefined); // never sent: a later step sends it
    let r: Submitted | 'lost';
    try {
      r = await sub.submit(ref.i, body, 1, 'submit', this.abort.signal);
    } catch (err) {
      if (!this.ended) {
        this.open.delete(ref.i);
        throw err;
      }
      r = 'lost';
    }
    if (!this.ended) {
      this.open.delete(ref.i);
      this.d.record(ref, r as Submitted);
      return;
    }
    if (r !== 'lost' && r !== undefined && !('error' in r)) await sub.flush().catch(() => (r = 'lost'));
    this.settle(ref, r);
  }

  private settle(ref: LineRef, r: Submitted | 'lost'): void {
    const s: Settled =
      r === 'lost'
        ? 'lost'
        : r === undefined
          ? 'deferred'
          : 'error' in r
            ? r
            : { id: r.id, ...(r.dup ? { dup: true } : {}) };
    if (typeof s === 'object' && 'id' in s) this.d.answered(s.id);
    this.d.detach!.settle(this.d.run, ref.i, s);
  }
}

/**
 * Reports the earlier submissions whose answer is known now: from this daemon's memory when it runs
 * the call, else from the sending step's journal; a call abandoned, failed, or not journaled by its
 * deadline (its daemon died) comes back deferred, to be sent again with the same idempotency key.
 */
export async function reportSubmitting(
  store: ObjectStore,
  run: RunScope,
  sg: Submitting[],
  res: StepResult,
  detach: DetachedSubmissions | undefined,
  answered: (id: string) => void,
): Promise<void> {
  const journals = new Map<number, Map<number, Journaled>>();
  const journal = async (q: number) => {
    let j = journals.get(q);
    if (!j) {
      const lines = (await store.lines(batchKeys.submitJournal(run, q))) as Journaled[];
      journals.set(q, (j = new Map(lines.filter((x) => x.a === 1).map((x) => [x.i, x]))));
    }
    return j;
  };
  for (const x of sg) {
    const ref: LineRef = { i: x.i, o: x.o, l: x.l, ...(x.k !== undefined ? { k: x.k } : {}) };
    let s: Settled | undefined;
    if (detach && x.dm === detach.id) {
      s = detach.get(run, x.i);
      // Its abort did not end it in time (should not happen): lost, and a late answer is ignored.
      if (s === undefined && Date.now() >= x.dl + GRACE_MS) detach.settle(run, x.i, (s = 'lost'));
    } else {
      const hit = (await journal(x.q)).get(x.i);
      if (hit) answered(hit.id);
      s = hit ? { id: hit.id, ...(hit.dup ? { dup: true } : {}) } : Date.now() >= x.dl + GRACE_MS ? 'lost' : undefined;
    }
    if (s === undefined) continue; // still running
    if (s === 'lost' || s === 'deferred') res.deferred.push(ref);
    else if ('error' in s) res.rejected.push({ i: x.i, error: s.error });
    else res.submitted.push({ ...ref, id: s.id, ...(s.dup ? { dup: true } : {}) });
  }
}

/** An AbortController whose signal takes any number of listeners (one per call in flight). */
function unlimited(controller: AbortController): AbortController {
  setMaxListeners(0, controller.signal);
  return controller;
}
