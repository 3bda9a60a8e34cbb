/**
 * One step of a pipeline: takes the new outcome segments of every stage's batch (the same ones if
 * the step is retried: its plan is kept), settles them into the inputs' contexts, moves each input
 * whose stage is done into the next stage's feed or to its end, reads new inputs into the first
 * stage, and writes the feed segments, contexts, stage outcomes and result lines it produced.
 */
import { pipelineKeys, stageDirs } from '../../contracts/names';
import { type BatchResultLine, type PipelineResultLine, type StageOutcome } from '../../contracts';
import { appendFeedSegment, feedLineReader } from '../../results/batch/feed';
import { batchInput, outputStore } from '../../results/batch/locations';
import { type ObjectStore } from '../../results/store/object-store';
import { advance, settle, stageEnding, type Ending } from './advance';
import { forgetEnded } from './forget';
import { planOf, specOf, type PipelineSpec } from './plan';
import {
  stageOutcomeOf,
  type FeedRow,
  type InputContext,
  type PipelineStepRequest,
  type PipelineStepResult,
} from './types';

/** Runs one step (see the module's comment). */
export async function pipelineStep(
  store: ObjectStore,
  req: PipelineStepRequest,
  beat: () => void,
): Promise<PipelineStepResult> {
  const { definition: def, attempt } = await specOf(store, req.run);
  const plan = await planOf(store, req, beat, def.maxInFlight);
  const n = def.stages.length;
  const contexts = new Map<number, InputContext>();
  const rows: FeedRow[][] = def.stages.map(() => []);
  const entered = new Array<number>(n).fill(0);
  const left = new Array<number>(n).fill(0);
  const stageLines: unknown[][] = def.stages.map(() => []);
  const results: PipelineResultLine[] = [];
  const dead: unknown[] = [];
  const ended: PipelineStepResult['ended'] = {};

  const end = (ctx: InputContext, e: Ending): void => {
    const line: PipelineResultLine = { index: ctx.index, ...e, stages: withoutOutputs(ctx), endedAt: Date.now() };
    results.push(line);
    if (e.status === 'FAILED') dead.push({ index: ctx.index, stage: e.stage, input: ctx.line });
    ended[e.status] = (ended[e.status] ?? 0) + 1;
    contexts.delete(ctx.index);
  };
  const go = async (ctx: InputContext, k: number): Promise<void> => {
    contexts.set(ctx.index, ctx);
    const a = await advance(def, ctx, k, req.stopped);
    if ('end' in a) return end(ctx, a.end);
    rows[a.stage]!.push(...a.rows);
    entered[a.stage]!++;
  };
  const load = async (i: number): Promise<InputContext | undefined> =>
    contexts.get(i) ?? ((await store.find(pipelineKeys.context(req.run, i))) as InputContext | undefined);

  for (let k = 0; k < n; k++) {
    const name = def.stages[k]!.name;
    const got = await outcomesOf(store, plan[k] ?? [], stageDirs(req.outDir, name, attempt).feed, beat);
    // An input moves on once, at its last outcome in the step. A retried step loads the contexts its
    // first attempt wrote (every slot this step fills, filled already): moving the input at each of
    // its outcomes would feed the next stage its rows twice, and count it leaving this stage twice.
    const last = new Map(got.map((g, n) => [g.i, n]));
    for (const [at, { i, e, o, row }] of got.entries()) {
      const ctx = await load(i);
      if (!ctx) throw new Error(`pipeline: no context of input ${i} for row ${row} of stage ${name}`);
      stageLines[k]!.push({ index: i, ...(e >= 0 ? { element: e } : {}), ...o });
      contexts.set(i, ctx);
      if (!settle(ctx, name, e, o) || last.get(i) !== at) continue;
      left[k]!++;
      const ending = stageEnding(ctx, name);
      if (ending) end(ctx, ending);
      else await go(laterStagesCleared(def, ctx, k), k + 1);
    }
  }

  let read: PipelineStepResult['read'];
  if (req.read) {
    const page = await batchInput(req.source).readLines(req.read.from, req.read.max);
    for (const l of page.lines) {
      if (attempt !== undefined) {
        // A rerun reads each failed input's context: it goes on from the stage where it failed.
        const ctx = JSON.parse(l.text) as InputContext;
        await go(ctx, ctx.at);
        continue;
      }
      const line = parseInput(l.text);
      const ctx: InputContext = { index: l.i, line: null, at: 0, s: {} };
      if ('bad' in line) end(ctx, { status: 'BAD_INPUT', error: `line ${l.i + 1}: ${line.bad}` });
      else await go({ ...ctx, line: line.value }, 0);
    }
    read = { cursor: page.cursor, eof: page.eof, lines: page.lines.length };
  }

  // Writes: every one replaces a whole value named by this step, so a retried step writes the same.
  const feeds = await Promise.all(
    def.stages.map((s, k) =>
      appendFeedSegment(outputStore(stageDirs(req.outDir, s.name, attempt).feed), req.stages[k]!.feed, rows[k]!),
    ),
  );
  const writes: Promise<unknown>[] = [];
  def.stages.forEach((s, k) => {
    if (stageLines[k]!.length > 0)
      writes.push(store.putLines(pipelineKeys.stageOutcomes(req.run, s.name, req.seq), stageLines[k]!));
  });
  if (results.length > 0) writes.push(store.putLines(pipelineKeys.results(req.run, req.seq), results));
  if (dead.length > 0) writes.push(store.putLines(pipelineKeys.deadLetter(req.run, req.seq), dead));
  await Promise.all(writes);
  await inBatches([...contexts.values()], 32, (c) => store.put(pipelineKeys.context(req.run, c.index), c));
  // The step before is recorded: the contexts of the inputs it ended are read no more.
  await forgetEnded(store, req.run, req.seq, beat);

  return {
    stages: def.stages.map((_, k) => {
      const after = plan[k]!.length > 0 ? plan[k]![plan[k]!.length - 1] : req.stages[k]!.after;
      return {
        feed: feeds[k]!,
        ...(after !== undefined ? { after } : {}),
        entered: entered[k]!,
        left: left[k]!,
        fed: rows[k]!.length,
      };
    }),
    ...(read ? { read } : {}),
    ended,
  };
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
 * `k`, but a retried step's first attempt may have moved it on already (its next stage's slots).
 */
function laterStagesCleared(def: PipelineSpec['definition'], ctx: InputContext, k: number): InputContext {
  for (const s of def.stages.slice(k + 1)) delete ctx.s[s.name];
  return ctx;
}

/** An input line: a JSON object, or why it is none. */
function parseInput(text: string): { value: InputContext['line'] } | { bad: string } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (err) {
    return { bad: `not valid JSON: ${(err as Error).message.slice(0, 200)}` };
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    return { bad: `not a JSON object (${Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v})` };
  return { value: v as InputContext['line'] };
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

async function inBatches<T>(items: T[], size: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}
