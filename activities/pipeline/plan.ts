/**
 * What a pipeline round works from: the run's definition (kept in the results store when it opened)
 * and its plan (the outcome segments of each stage's batch it takes, the inputs it reads), found once
 * and kept, so that a round done again takes exactly the same ones and writes exactly the same feed rows.
 */
import { batchKeys, pipelineKeys } from '../../contracts/names';
import { type RunScope } from '../../contracts';
import { type PipelineDefinition } from '../../contracts/pipeline';
import { type ObjectStore } from '../../results/store/object-store';
import { type Cursor, type PipelineStepRequest } from './types';

/** Outcome segments per stage one step takes at most: bounds its work. */
const MAX_SEGMENTS = 20;
const POLL_MS = 200;
/**
 * Once a step has found outcomes, how long it waits for more (each stage's batch writes a segment
 * per step, about one a second while it refills): one step then takes every stage's, so the
 * pipeline's steps, and its stages' signals, do not grow with the rate of the batches' steps.
 */
const LINGER_MS = 1000;
/** Room for new inputs that makes a step read at once, without waiting for outcomes (a share of `maxInFlight`). */
const EAGER_SHARE = 4;

/** What a run of a pipeline runs: its definition and each stage's endpoint (written by `openPipeline`). */
export interface PipelineSpec {
  definition: PipelineDefinition;
  endpoints: string[];
  /** A rerun's attempt (2 and on): its source holds input contexts, its stages have their own dirs. */
  attempt?: number;
}

const specs = new Map<string, PipelineSpec>();

/** The run's definition, read once per run and process. */
export async function specOf(store: ObjectStore, run: RunScope): Promise<PipelineSpec> {
  const key = pipelineKeys.definition(run);
  let s = specs.get(key);
  if (!s) {
    s = (await store.get(key)) as PipelineSpec;
    if (specs.size > 100) specs.clear();
    specs.set(key, s);
  }
  return s;
}

/**
 * The order in which a batch writes its outcome segments: by step number, and a finish's `-rest-`
 * segments after the finish's own (`000000043.jsonl`, then `000000043-rest-000000.jsonl`), which
 * plain key order would put first.
 */
const stem = (key: string): string => key.replace(/\.jsonl$/, '');

/** Keys one listing of new segments asks for (a page). */
const LIST_LIMIT = 1000;

/**
 * The outcome segments of a stage's batch after the last one taken, in the order written, at most
 * MAX_SEGMENTS: listed from that one on (the listing does not grow with the segments taken before).
 */
async function newSegments(store: ObjectStore, s: PipelineStepRequest['stages'][number]): Promise<string[]> {
  // From the last one's stem: its `-rest-` segments sort before it in key order.
  const page = await store.list(
    batchKeys.outcomesPrefix(s.run),
    s.after === undefined ? { limit: LIST_LIMIT } : { after: stem(s.after), limit: LIST_LIMIT },
  );
  let keys = page.entries.map((e) => e.key).filter((k) => k.endsWith('.jsonl'));
  // A cut page may hold a step's `-rest-` segments without the step's own: leave that step to the next listing.
  const number = (k: string): string => /(\d+)[^/]*$/.exec(k)?.[1] ?? '';
  if (page.next !== undefined && keys.length > 0) {
    const last = number(keys[keys.length - 1]!);
    keys = keys.filter((k) => number(k) !== last);
  }
  return keys
    .filter((k) => s.after === undefined || stem(k) > stem(s.after))
    .sort((a, b) => (stem(a) < stem(b) ? -1 : 1))
    .slice(0, MAX_SEGMENTS);
}

/**
 * What one round does, kept before it does it (`steps/plan-<seq>.json`): the outcome segments it
 * takes per stage, the new inputs it reads and whether the pipeline had stopped. A round done again
 * (its step retried, or a later step going over rounds a failed attempt ran) does exactly the same,
 * whatever the request it comes with now says.
 */
export interface RoundPlan {
  /** 2: the round kept its inputs' contexts one file per input; 3: in its round file (./contexts.ts). */
  v?: number;
  segments: string[][];
  read?: { from: Cursor; max: number };
  stopped?: string;
}

/** The plans of rounds whose contexts are in round files. */
export const ROUND_FILES = 3;

/**
 * The round's plan: the kept one, or found now (waiting up to `req.waitMs` for an outcome segment,
 * less once `stop` says the step's rounds end: a control came).
 */
export async function planOf(
  store: ObjectStore,
  req: PipelineStepRequest,
  beat: () => void,
  maxInFlight: number,
  stop: () => boolean = () => false,
): Promise<RoundPlan> {
  const key = pipelineKeys.plan(req.run, req.seq);
  const kept = (await store.find(key)) as RoundPlan | undefined;
  // A plan kept before rounds (no `v`) read what its request said.
  if (kept) return kept.v === undefined ? { ...withRequest(req), segments: kept.segments } : kept;
  const segments = await segmentsOf(store, req, beat, maxInFlight, stop);
  const plan: RoundPlan = { v: ROUND_FILES, ...withRequest(req), segments };
  if (await store.create(key, plan)) return plan;
  return (await store.get(key)) as RoundPlan;
}

const withRequest = (req: PipelineStepRequest): Omit<RoundPlan, 'segments'> => ({
  ...(req.read && req.read.max > 0 ? { read: req.read } : {}),
  ...(req.stopped !== undefined ? { stopped: req.stopped } : {}),
});

/**
 * The outcome segments a new round takes per stage, waiting up to `req.waitMs` for one, and lingering
 * for more while a stage with inputs at it has none yet (once every such stage has one, nothing is
 * left to wait for: a small pipeline's inputs go on at once).
 */
async function segmentsOf(
  store: ObjectStore,
  req: PipelineStepRequest,
  beat: () => void,
  maxInFlight: number,
  stop: () => boolean,
): Promise<string[][]> {
  const started = Date.now();
  // Much room for new inputs (the start, or many inputs ended): read at once; a little: wait for outcomes as well.
  const eager = req.read !== undefined && req.read.max >= Math.ceil(maxInFlight / EAGER_SHARE);
  let segments: string[][];
  let foundAt: number | undefined;
  for (;;) {
    segments = await Promise.all(req.stages.map((s) => newSegments(store, s)));
    const now = Date.now();
    if (segments.some((s) => s.length > 0)) foundAt ??= now;
    const full = segments.some((s) => s.length >= MAX_SEGMENTS);
    const lingered =
      foundAt !== undefined && (now - foundAt >= Math.min(LINGER_MS, req.waitMs) || allIn(req, segments));
    if (eager || full || lingered || now - started >= req.waitMs || stop()) break;
    beat();
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  return segments;
}

/** Every stage with inputs at it (as the request says) has a new segment: none is waited for. */
const allIn = (req: PipelineStepRequest, segments: string[][]): boolean =>
  req.stages.every((s, k) => (s.active ?? 0) === 0 || segments[k]!.length > 0);
