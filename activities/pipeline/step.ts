/**
 * One step of a pipeline: rounds (./round.ts), each named by its own seq, until the step's time is
 * up or nothing is left in flight. A round takes the new outcome segments of every stage's batch,
 * moves each input whose stage is done into the next stage's feed or to its end, and reads new inputs
 * while fewer than `maxInFlight` are in flight. Between rounds the step tells a stage's batch how far
 * its feed goes when the batch may be waiting for it (the `batchFeed` signal, sent from here: none
 * in the pipeline's history). One step of several rounds is one activity in history: that, not the
 * rate of outcomes, sets the pipeline's history events per input.
 */
import { type BatchFeed } from '../../contracts';
import { type ObjectStore } from '../../results/store/object-store';
import { tableBefore } from './contexts';
import { forgetEnded } from './forget';
import { planOf, specOf, type PipelineSpec } from './plan';
import { runRound } from './round';
import { StepWatch, type AskControls } from './watch';
import { type Cursor, type PipelineStepRequest, type PipelineStepResult } from './types';

/** Rounds one step runs at most. */
const MAX_ROUNDS = 50;

/** Tells the batch `batchId` how far its feed goes (resolves false when it could not be told). */
export type SignalFeed = (batchId: string, feed: BatchFeed) => Promise<boolean>;

/** Runs one step (see the module's comment); `signal` absent: one round, the workflow tells the stages. */
export async function pipelineStep(
  store: ObjectStore,
  req: PipelineStepRequest,
  beat: () => void,
  signal?: SignalFeed,
  ask?: AskControls,
): Promise<PipelineStepResult> {
  const spec = await specOf(store, req.run);
  // The rounds of the step before are behind it: the contexts of the inputs they ended are read no more.
  await forgetEnded(store, req.run, req.seq, beat);
  const rounds = req.rounds && signal ? req.rounds : undefined;
  const total = emptyResult(req);
  const signals = new StageSignals(req, signal);
  const watch = new StepWatch(spec.definition, rounds ? ask : undefined);
  const until = Date.now() + (rounds?.ms ?? 0);
  const drainedAtStart = signals.drained(req.stopped !== undefined || (rounds?.eof ?? false));
  let round: PipelineStepRequest = req;
  let inFlight = rounds?.inFlight ?? 0;
  let table = await tableBefore(store, req.run, req.seq);
  for (let n = 0; ;) {
    const plan = await planOf(store, round, beat, spec.definition.maxInFlight, () => watch.check());
    const { res, table: after } = await runRound(store, { req: round, spec, plan, beat, table });
    table = after;
    addRound(total, res);
    n++;
    if (!rounds) return total;
    inFlight += (res.read?.lines ?? 0) - Object.values(res.ended).reduce((a, b) => a + b, 0);
    await signals.afterRound(res);
    // Nothing in flight and nothing more to read (the input is read, or the workflow said not to read): done.
    const canRead = req.read !== undefined && !(total.read?.eof ?? false);
    if ((inFlight === 0 && !canRead) || n >= MAX_ROUNDS || Date.now() >= until) break;
    // A control (pause, cancel, deadline, cost cap), or a stage no input can enter any more: the workflow acts now.
    const inputDone = req.stopped !== undefined || (rounds.eof ?? false) || (total.read?.eof ?? false);
    if (watch.check() || signals.drained(inputDone) > drainedAtStart) break;
    round = nextRound(req, round, res, spec, inFlight, watch.within(Math.max(0, until - Date.now())));
  }
  await Promise.all([signals.atEnd(), watch.settled()]);
  total.stages.forEach((s, k) => (s.told = signals.told[k]));
  return { ...total, signalled: true };
}

/** The request of the round after `prev`: its seq, the stages' cursors it left, what it may read. */
function nextRound(
  req: PipelineStepRequest,
  prev: PipelineStepRequest,
  res: PipelineStepResult,
  spec: PipelineSpec,
  inFlight: number,
  waitMs: number,
): PipelineStepRequest {
  const { read: _read, ...rest } = prev;
  const from: Cursor | undefined = res.read ? res.read.cursor : prev.read?.from;
  const eof = res.read?.eof ?? false;
  const room = Math.min(req.rounds!.maxRead, spec.definition.maxInFlight - inFlight);
  return {
    ...rest,
    seq: prev.seq + 1,
    stages: prev.stages.map((s, k) => {
      const r = res.stages[k]!;
      const active = (s.active ?? 0) + r.entered - r.left;
      return { ...s, feed: r.feed, ...(r.after !== undefined ? { after: r.after } : {}), active };
    }),
    // The workflow lets the step read (not paused, not stopped, input left): each round reads what room there is.
    ...(req.read && from && !eof ? { read: { from, max: Math.max(0, room) } } : {}),
    waitMs: Math.min(req.waitMs, waitMs),
  };
}

/** Which stages' batches are told how far their feeds go, and when. */
class StageSignals {
  /** Inputs at each stage (as the workflow said, then as the rounds moved them). */
  private readonly active: number[];
  private readonly feeds: Cursor[];
  /** Feed lines each batch was told of, and rows whose outcomes were taken (the workflow's, then the rounds'). */
  readonly told: number[];
  private readonly taken: number[];

  constructor(
    private readonly req: PipelineStepRequest,
    private readonly signal?: SignalFeed,
  ) {
    this.active = req.stages.map((s) => s.active ?? 0);
    this.feeds = req.stages.map((s) => s.feed);
    this.told = req.stages.map((s) => s.told ?? 0);
    this.taken = req.stages.map((s) => s.taken ?? 0);
  }

  /** Stages no input can enter any more once the input is done: each with no input at a stage before it. */
  drained(inputDone: boolean): number {
    if (!inputDone) return 0;
    const k = this.active.findIndex((a) => a > 0);
    return k < 0 ? this.active.length : k + 1;
  }

  /**
   * A stage fed while none of its inputs were left is told at once: its batch may be waiting for its
   * feed. The others read their feeds on their own while they have jobs (a batch refills from its open
   * feed), so they are not told for each round (each signal is four events in the batch's history).
   */
  async afterRound(res: PipelineStepResult): Promise<void> {
    await Promise.all(
      res.stages.map(async (s, k) => {
        const idle = this.active[k]! - s.left === 0;
        this.active[k] = this.active[k]! + s.entered - s.left;
        this.taken[k] = this.taken[k]! + (s.taken ?? 0);
        this.feeds[k] = s.feed;
        if (idle && s.feed.line > this.told[k]!) await this.tell(k);
      }),
    );
  }

  /**
   * At the step's end, a stage whose every row it was told of has its outcome is told of the rows fed
   * since: its batch may have ended its jobs without reading them, and waits (told of none, a batch
   * that holds jobs reads its feed on its own).
   */
  async atEnd(): Promise<void> {
    await Promise.all(
      this.feeds.map((f, k) => (f.line > this.told[k]! && this.taken[k]! >= this.told[k]! ? this.tell(k) : undefined)),
    );
  }

  private async tell(k: number): Promise<void> {
    const f = this.feeds[k]!;
    const told = await this.signal!(this.req.stages[k]!.run.workflowId, {
      lines: f.line,
      bytes: f.offset,
      closed: false,
    });
    if (told) this.told[k] = f.line;
  }
}

/** A step's result before its first round: nothing moved. */
function emptyResult(req: PipelineStepRequest): PipelineStepResult & { seqs: number } {
  return {
    stages: req.stages.map((s) => ({
      feed: s.feed,
      ...(s.after !== undefined ? { after: s.after } : {}),
      entered: 0,
      left: 0,
      fed: 0,
      taken: 0,
    })),
    ended: {},
    seqs: 0,
  };
}

/** Adds a round's result to the step's: the last cursors, the sums of counts. */
function addRound(total: PipelineStepResult & { seqs: number }, res: PipelineStepResult): void {
  total.seqs++;
  res.stages.forEach((s, k) => {
    const t = total.stages[k]!;
    t.feed = s.feed;
    if (s.after !== undefined) t.after = s.after;
    t.entered += s.entered;
    t.left += s.left;
    t.fed += s.fed;
    t.taken = (t.taken ?? 0) + (s.taken ?? 0);
  });
  if (res.read) {
    total.read = {
      cursor: res.read.cursor,
      eof: res.read.eof,
      lines: (total.read?.lines ?? 0) + res.read.lines,
    };
  }
  for (const [status, n] of Object.entries(res.ended) as [keyof PipelineStepResult['ended'], number][])
    total.ended[status] = (total.ended[status] ?? 0) + n;
}
