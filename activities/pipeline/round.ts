/**
 * One round of a pipeline step, named by its own seq: takes the outcome segments its kept plan names,
 * settles them into the inputs' contexts (./contexts.ts: as the round before left them), moves each
 * input whose stage is done into the next stage's feed or to its end, reads the new inputs its plan
 * says, and writes what it produced, each as a whole value named by the round (a round done again
 * writes the same).
 */
import { pipelineKeys, stageDirs } from '../../contracts/names';
import { type BatchResultLine, type PipelineResultLine, type StageOutcome } from '../../contracts';
import { appendFeedSegment, feedLineReader } from '../../results/batch/feed';
import { batchInput, outputStore } from '../../results/batch/locations';
import { type ObjectStore } from '../../results/store/object-store';
import { parseObjectLine } from '../batch/input';
import { advance, settle, stageEnding, type Ending } from './advance';
import { loadContext, writeRoundContexts, type ContextTable } from './contexts';
import { type PipelineSpec, type RoundPlan } from './plan';
import {
  stageOutcomeOf,
  type FeedRow,
  type InputContext,
  type PipelineStepRequest,
  type PipelineStepResult,
} from './types';

/** What a round works on: its request (its seq, the stages' cursors) and its kept plan. */
export interface RoundInput {
  req: PipelineStepRequest;
  spec: PipelineSpec;
  plan: RoundPlan;
  beat: () => void;
  /** Where the inputs' contexts are after the round before. */
  table: ContextTable;
}

/** A round's result, and where the inputs' contexts are after it. */
export interface RoundResult {
  res: PipelineStepResult;
  table: ContextTable;
}

/** What a round gathers before it writes: per stage and per input. */
class RoundWork {
  readonly contexts = new Map<number, InputContext>();
  readonly rows: FeedRow[][];
  readonly entered: number[];
  readonly left: number[];
  readonly stageLines: unknown[][];
  readonly results: PipelineResultLine[] = [];
  readonly dead: unknown[] = [];
  readonly ended: PipelineStepResult['ended'] = {};
  /** The inputs that ended (their contexts leave the table). */
  readonly gone: number[] = [];

  constructor(
    readonly store: ObjectStore,
    readonly r: RoundInput,
  ) {
    const n = r.spec.definition.stages.length;
    this.rows = Array.from({ length: n }, () => []);
    this.stageLines = Array.from({ length: n }, () => []);
    this.entered = new Array<number>(n).fill(0);
    this.left = new Array<number>(n).fill(0);
  }

  /** Ends the input: its result line, its dead letter when it failed. */
  end(ctx: InputContext, e: Ending): void {
    const line: PipelineResultLine = { index: ctx.index, ...e, stages: withoutOutputs(ctx), endedAt: Date.now() };
    this.results.push(line);
    if (e.status === 'FAILED') this.dead.push({ index: ctx.index, stage: e.stage, input: ctx.line });
    this.ended[e.status] = (this.ended[e.status] ?? 0) + 1;
    this.contexts.delete(ctx.index);
    this.gone.push(ctx.index);
  }

  /** Moves the input into stage `k` or a later one (its feed rows), or to its end. */
  async go(ctx: InputContext, k: number): Promise<void> {
    this.contexts.set(ctx.index, ctx);
    const a = await advance(this.r.spec.definition, ctx, k, this.r.plan.stopped);
    if ('end' in a) return this.end(ctx, a.end);
    this.rows[a.stage]!.push(...a.rows);
    this.entered[a.stage]!++;
  }

  /** The input's context: this round's, else as the round before left it. */
  async load(i: number): Promise<InputContext | undefined> {
    return this.contexts.get(i) ?? (await loadContext(this.store, this.r.req.run, this.r.table, i));
  }
}

/** Runs one round (see the module's comment). */
export async function runRound(store: ObjectStore, r: RoundInput): Promise<RoundResult> {
  const w = new RoundWork(store, r);
  for (let k = 0; k < r.spec.definition.stages.length; k++) await takeOutcomes(w, k);
  const read = r.plan.read ? await readInputs(w, r.plan.read) : undefined;
  const { feeds, table } = await writeRound(w);
  const { req, plan } = r;
  const res: PipelineStepResult = {
    stages: r.spec.definition.stages.map((_, k) => {
      const segs = plan.segments[k] ?? [];
      const after = segs.length > 0 ? segs[segs.length - 1] : req.stages[k]!.after;
      return {
        feed: feeds[k]!,
        ...(after !== undefined ? { after } : {}),
        entered: w.entered[k]!,
        left: w.left[k]!,
        fed: w.rows[k]!.length,
        taken: w.stageLines[k]!.length,
      };
    }),
    ...(read ? { read } : {}),
    ended: w.ended,
  };
  return { res, table };
}

/**
 * Stage `k`'s outcomes in the plan's segments: each settled in its input's context; an input whose
 * stage has every outcome moves on. An input moves on once, at its last outcome in the round: a round
 * done again loads the contexts its first run wrote (every slot it fills, filled already), and moving
 * the input at each of its outcomes would feed the next stage its rows twice (and count it leaving twice).
 */
async function takeOutcomes(w: RoundWork, k: number): Promise<void> {
  const { req, spec, plan, beat } = w.r;
  const def = spec.definition;
  const name = def.stages[k]!.name;
  const got = await outcomesOf(w.store, plan.segments[k] ?? [], stageDirs(req.outDir, name, spec.attempt).feed, beat);
  const last = new Map(got.map((g, n) => [g.i, n]));
  for (const [at, { i, e, o, row }] of got.entries()) {
    const ctx = await w.load(i);
    if (!ctx) throw new Error(`pipeline: no context of input ${i} for row ${row} of stage ${name}`);
    w.stageLines[k]!.push({ index: i, ...(e >= 0 ? { element: e } : {}), ...o });
    w.contexts.set(i, ctx);
    if (!settle(ctx, name, e, o) || last.get(i) !== at) continue;
    w.left[k]!++;
    const ending = stageEnding(ctx, name);
    if (ending) w.end(ctx, ending);
    else await w.go(laterStagesCleared(def, ctx, k), k + 1);
  }
}

/** New inputs from the file (or a rerun's failed inputs, each with its context) into their first stage. */
async function readInputs(
  w: RoundWork,
  at: NonNullable<RoundPlan['read']>,
): Promise<NonNullable<PipelineStepResult['read']>> {
  const page = await batchInput(w.r.req.source).readLines(at.from, at.max);
  for (const l of page.lines) {
    if (w.r.spec.attempt !== undefined) {
      // A rerun reads each failed input's context: it goes on from the stage where it failed.
      const ctx = JSON.parse(l.text) as InputContext;
      await w.go(ctx, ctx.at);
      continue;
    }
    const line = parseObjectLine(l.text);
    const ctx: InputContext = { index: l.i, line: null, at: 0, s: {} };
    if ('bad' in line) w.end(ctx, { status: 'BAD_INPUT', error: `line ${l.i + 1}: ${line.bad}` });
    else await w.go({ ...ctx, line: line.value as InputContext['line'] }, 0);
  }
  return { cursor: page.cursor, eof: page.eof, lines: page.lines.length };
}

/** Writes the feed segments, stage outcome lines, result lines, dead letters and contexts; returns each feed's end. */
async function writeRound(
  w: RoundWork,
): Promise<{ feeds: PipelineStepResult['stages'][number]['feed'][]; table: ContextTable }> {
  const { req, spec } = w.r;
  const stages = spec.definition.stages;
  const feeds = await Promise.all(
    stages.map((s, k) =>
      appendFeedSegment(outputStore(stageDirs(req.outDir, s.name, spec.attempt).feed), req.stages[k]!.feed, w.rows[k]!),
    ),
  );
  const writes: Promise<unknown>[] = [];
  stages.forEach((s, k) => {
    if (w.stageLines[k]!.length > 0)
      writes.push(w.store.putLines(pipelineKeys.stageOutcomes(req.run, s.name, req.seq), w.stageLines[k]!));
  });
  if (w.results.length > 0) writes.push(w.store.putLines(pipelineKeys.results(req.run, req.seq), w.results));
  if (w.dead.length > 0) writes.push(w.store.putLines(pipelineKeys.deadLetter(req.run, req.seq), w.dead));
  await Promise.all(writes);
  const table = await writeRoundContexts(w.store, req.run, req.seq, w.r.table, [...w.contexts.values()], w.gone);
  return { feeds, table };
}

/** A stage's outcomes in the segments `keys` of its batch, in order: each with its feed row's input and element. */
async function outcomesOf(
  store: ObjectStore,
  keys: string[],
  feed: string,
  beat: () => void,
): Promise<{ i: number; e: number; o: StageOutcome; row: number }[]> {
  const feedLine = feedLineReader(outputStore(feed));
  const out: { i: number; e: number; o: StageOutcome; row: number }[] = [];
  for (const key of keys) {
    beat();
    for (const l of (await store.lines(key)) as BatchResultLine[]) {
      const [i, e] = (JSON.parse(await feedLine(l.index)) as FeedRow).p;
      out.push({ i, e, o: stageOutcomeOf(l), row: l.index });
    }
  }
  return out;
}

/**
 * The context of an input leaving stage `k`, without outcomes of later stages: none while it was at
 * `k`, but a round done again may find its first run's (or a later round's) moves already made.
 */
function laterStagesCleared(def: PipelineSpec['definition'], ctx: InputContext, k: number): InputContext {
  for (const s of def.stages.slice(k + 1)) delete ctx.s[s.name];
  return ctx;
}

/** Each stage's outcome without its output (results.jsonl; stages/<name>.jsonl has the outputs). */
function withoutOutputs(ctx: InputContext): PipelineResultLine['stages'] {
  const strip = (o: StageOutcome | null): StageOutcome | null => {
    if (!o) return o;
    const { output: _output, ...rest } = o;
    return rest as StageOutcome;
  };
  return Object.fromEntries(
    Object.entries(ctx.s).map(([k, v]) => [k, Array.isArray(v) ? v.map(strip) : (strip(v) as StageOutcome)]),
  );
}
