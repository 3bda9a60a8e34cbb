/**
 * Where one input goes next, decided in the activity (JSONata runs here, never in the workflow):
 * into a stage (its feed rows: one per element of an `each`), past a stage (`each` gave no element),
 * or to its end (COMPLETED with the output's value, SKIPPED by a `when`, FAILED by an expression or
 * a stage's jobs, NOT_SUBMITTED once the pipeline stopped). An expression's failure ends the input
 * with its message and position; it never fails the step.
 */
import { type PipelineOutcomeStatus, type StageOutcome } from '../../contracts';
import {
  describeFailure,
  pipelineOutput,
  stageEach,
  stageInput,
  stageWhen,
  type ExpressionFailure,
  type PipelineContext,
  type PipelineDefinition,
} from '../../contracts/pipeline';
import { type FeedRow, type InputContext } from './types';

/** How an input ended (its result line is built from it and the context). */
export interface Ending {
  status: PipelineOutcomeStatus;
  stage?: string;
  output?: unknown;
  error?: string;
  errorType?: string;
  position?: number;
}

/** The input's rows for stage `stage`, or its end. */
export type Advance = { stage: number; rows: FeedRow[] } | { end: Ending };

/** What the expressions read: the input line and every stage's outcome so far. */
export const contextOf = (ctx: InputContext): PipelineContext => ({ ...ctx.s, input: ctx.line });

const failed = (f: ExpressionFailure, stage?: string): { end: Ending } => ({
  end: {
    status: 'FAILED',
    ...(stage !== undefined ? { stage } : {}),
    error: describeFailure(f),
    errorType: f.code,
    ...(f.position !== undefined ? { position: f.position } : {}),
  },
});

/**
 * Moves the input into stage `k` (or the first after it that has work), or to its end; sets the
 * context's place and empty slots of the stage it enters. `stopped`: the pipeline submits no more.
 */
export async function advance(
  def: PipelineDefinition,
  ctx: InputContext,
  k: number,
  stopped?: string,
): Promise<Advance> {
  for (; k < def.stages.length; k++) {
    const stage = def.stages[k]!;
    const name = stage.name;
    const when = await stageWhen(def, name, contextOf(ctx));
    if (!when.ok) return failed(when, name);
    if (!when.value) return { end: { status: 'SKIPPED', stage: name } };
    if (stopped !== undefined) return { end: { status: 'NOT_SUBMITTED', stage: name, error: stopped } };
    const policy = stage.policy !== undefined ? { policy: stage.policy } : {};
    if (stage.each === undefined) {
      const input = await stageInput(def, name, contextOf(ctx));
      if (!input.ok) return failed(input, name);
      ctx.at = k;
      delete ctx.s[name];
      return { stage: k, rows: [{ input: input.value, ...policy, p: [ctx.index, -1, 1] }] };
    }
    const each = await stageEach(def, name, contextOf(ctx));
    if (!each.ok) return failed(each, name);
    const n = each.value.length;
    if (n === 0) {
      ctx.s[name] = []; // nothing to run: the stage's outcome is no element, and the input goes on
      continue;
    }
    const rows: FeedRow[] = [];
    for (let e = 0; e < n; e++) {
      const input = await stageInput(def, name, contextOf(ctx), { item: each.value[e]!, index: e });
      if (!input.ok) return failed(input, name);
      rows.push({ input: input.value, ...policy, p: [ctx.index, e, n] });
    }
    ctx.at = k;
    ctx.s[name] = Array<StageOutcome | null>(n).fill(null);
    return { stage: k, rows };
  }
  ctx.at = def.stages.length;
  const out = await pipelineOutput(def, contextOf(ctx));
  if (!out.ok) return failed(out, 'output');
  return { end: { status: 'COMPLETED', ...(out.value !== undefined ? { output: out.value } : {}) } };
}

/** Sets the outcome of element `e` (-1: no each) of stage `name`; true once the stage has every outcome. */
export function settle(ctx: InputContext, name: string, e: number, o: StageOutcome): boolean {
  if (e < 0) {
    ctx.s[name] = o;
    return true;
  }
  const slots = ctx.s[name];
  if (!Array.isArray(slots)) return false; // not (or no longer) at this stage: a stale row
  slots[e] = o;
  return slots.every((x) => x !== null);
}

/**
 * A stage with every outcome in: undefined when the input goes on, else its end. A job that did not
 * complete ends it; an `each` stage goes on while at least one element completed (the next `when`
 * decides), and ends it when every element failed or the pipeline stopped them.
 */
export function stageEnding(ctx: InputContext, name: string): Ending | undefined {
  const got = ctx.s[name];
  const all = Array.isArray(got) ? (got.filter(Boolean) as StageOutcome[]) : got ? [got] : [];
  const stop = all.find((o) => o.status === 'CANCELLED' || o.status === 'NOT_SUBMITTED');
  if (stop) return { status: stop.status as 'CANCELLED' | 'NOT_SUBMITTED', stage: name, ...errorOf(stop) };
  if (all.length === 0 || all.some((o) => o.status === 'COMPLETED')) return undefined;
  return { status: 'FAILED', stage: name, ...errorOf(all[0]!) };
}

const errorOf = (o: StageOutcome): { error?: string; errorType?: string } => {
  const errorType = o.errorType ?? (o.status !== 'FAILED' ? o.status : undefined);
  return { ...(o.error !== undefined ? { error: o.error } : {}), ...(errorType ? { errorType } : {}) };
};
