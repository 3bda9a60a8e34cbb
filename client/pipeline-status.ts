/**
 * A pipeline's status as people read it (the CLI's `pipeline status` and the console alike): its
 * view and final state, the figures across its stages (failed, spend, rate, ETA), and its ended
 * inputs by stage: failures by stage and error type, skipped inputs per stage.
 */
import { type PipelineResultLine, type PipelineState } from '../contracts';
import { openedInput } from '../results/batch/locations';
import { groupFailures, type FailureGroup, type FailureLine } from './batch-failures';
import { type OutcomeHistory } from './outcome-history';
import { type PipelineClient, type PipelineView } from './pipeline';

/** The pipeline's view; a completed pipeline's state comes from its result when no daemon answers. */
export async function pipelineStatus(pipeline: PipelineClient, id: string): Promise<PipelineView> {
  const v = await pipeline.view(id);
  if (!v.state && v.workflowStatus === 'COMPLETED') v.state = await pipeline.result(id).catch(() => undefined);
  return v;
}

/** What a pipeline's list row and page show beside its counts. */
export interface PipelineFigures {
  /** Inputs that ended neither COMPLETED nor SKIPPED. */
  failed: number;
  /** Every stage's spend, USD. */
  spend: number;
  /** Inputs ended per second, on average since the start. */
  rate: number;
  /** When the last input should end (epoch ms), while it runs and the total is known. */
  eta?: number;
}

/** The figures of a state at `now`. */
export function pipelineFigures(s: PipelineState, now: number): PipelineFigures {
  const fine = (s.counts.byStatus.COMPLETED ?? 0) + (s.counts.byStatus.SKIPPED ?? 0);
  const spend = s.stages.reduce((sum, st) => sum + (st.batch?.spend ?? 0), 0);
  const seconds = Math.max(1, ((s.endedAt ?? now) - s.startedAt) / 1000);
  const rate = s.counts.done / seconds;
  const left = s.counts.total === undefined ? undefined : s.counts.total - s.counts.done;
  const eta = s.phase !== 'done' && left !== undefined && rate > 0 ? now + (1000 * left) / rate : undefined;
  return { failed: s.counts.done - fine, spend, rate, ...(eta !== undefined ? { eta } : {}) };
}

/** A pipeline's ended inputs by stage: outcome counts per stage, and the failures grouped by stage and error type. */
export interface PipelineEnded {
  /** Per stage where inputs stopped (not COMPLETED): their outcomes (FAILED, SKIPPED, CANCELLED...). */
  byStage: Record<string, Record<string, number>>;
  /** Inputs not COMPLETED and not SKIPPED, by stage and error type, largest first, with examples. */
  failures: FailureGroup[];
}

/** The stage's outcome of a result line, for its examples' attempts and job ids. */
function failureLine(l: PipelineResultLine): FailureLine {
  const at = l.stage !== undefined ? l.stages[l.stage] : undefined;
  const o = Array.isArray(at) ? at.find((x) => x && x.status !== 'COMPLETED') : at;
  return {
    index: l.index,
    status: l.status,
    ...(l.error !== undefined ? { error: l.error } : {}),
    ...(l.errorType !== undefined ? { errorType: l.errorType } : {}),
    remoteJobIds: o?.jobIds ?? [],
    attempts: o?.attempts ?? 0,
    stage: l.stage ?? '(input)',
  };
}

/** When the input's first job was submitted (its first stage's outcome), if it had one. */
function firstSubmitted(l: PipelineResultLine): number | undefined {
  let first: number | undefined;
  for (const at of Object.values(l.stages))
    for (const o of Array.isArray(at) ? at : [at])
      if (o?.submittedAt !== undefined && (first === undefined || o.submittedAt < first)) first = o.submittedAt;
  return first;
}

/**
 * Streams the result lines once (results.jsonl once ended, else the lines written so far), keeping
 * counts and `examples` per group; the examples' input lines are read from the input file (not for
 * a rerun, whose source holds contexts, not lines).
 */
export async function pipelineEnded(
  pipeline: PipelineClient,
  id: string,
  o: { examples?: number; history?: OutcomeHistory } = {},
): Promise<PipelineEnded> {
  const byStage: Record<string, Record<string, number>> = {};
  async function* lines(): AsyncGenerator<FailureLine> {
    for await (const l of pipeline.results(id)) {
      o.history?.add({
        ok: l.status === 'COMPLETED' || l.status === 'SKIPPED',
        submittedAt: firstSubmitted(l),
        endedAt: l.endedAt,
      });
      if (l.status === 'COMPLETED') continue;
      const f = failureLine(l);
      const at = (byStage[f.stage!] ??= {});
      at[l.status] = (at[l.status] ?? 0) + 1;
      yield f;
    }
  }
  const input = await pipeline.inputOf(id).catch(() => undefined);
  const source = input && !input.rerunOf ? openedInput(input.source) : undefined;
  const failures = await groupFailures(lines(), source, { examples: o.examples ?? 3, failed: (s) => s !== 'SKIPPED' });
  return { byStage, failures };
}
