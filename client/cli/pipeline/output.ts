/** How the pipeline commands show pipelines to people: exit codes, the status table, a progress line per stage. */
import { type PipelineState } from '../../../contracts';
import { type PipelineView } from '../../pipeline';
import { EXIT_CODES } from '../exit-codes';
import { duration, etaText, rateText, spendText } from '../batch/output';

/** The argument of the commands that name one pipeline. */
export const ID_ARGUMENT = ['<id>', 'the pipeline: pipeline/<id> or <id>'] as const;

/** Exit codes of the pipeline commands, for their help and docs. */
export const PIPELINE_EXIT_HELP =
  'Exit code: 0 the pipeline completed and every input COMPLETED or was SKIPPED by a when; 1 it completed with some inputs FAILED, BAD_INPUT or NOT_SUBMITTED, or the workflow failed; 2 usage (no such pipeline); 3 cancelled; 4 still running.';

/** The pipeline's view (client/pipeline-status.ts: the console reads it the same way). */
export { pipelineStatus as pipelineView } from '../../pipeline-status';

/** 4 while it runs, 3 cancelled, 0 only if every input COMPLETED or was SKIPPED, else 1. */
export function pipelineExitCode(v: PipelineView): number {
  if (v.workflowStatus === 'RUNNING') return EXIT_CODES.running;
  if (v.workflowStatus === 'CANCELLED') return EXIT_CODES.cancelled;
  const c = v.state?.counts;
  const fine = (c?.byStatus.COMPLETED ?? 0) + (c?.byStatus.SKIPPED ?? 0);
  if (v.workflowStatus === 'COMPLETED' && c && fine === c.done) return EXIT_CODES.ok;
  return EXIT_CODES.failed;
}

const byStatusText = (by: Record<string, number | undefined>): string =>
  Object.entries(by)
    .filter(([, n]) => n)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ') || 'none yet';

type StageState = PipelineState['stages'][number];

/** A stage's jobs: done of fed, in flight, not completed, rate, ETA, spend, and why it waits (its line and its bar). */
export function stageJobsText(st: StageState, now = Date.now()): string {
  const b = st.batch;
  if (!b) return `${st.fed} jobs fed`;
  const failed = b.counts.done - (b.counts.byStatus.COMPLETED ?? 0);
  const waiting = b.waiting.length ? ` (${b.waiting.join(', ')})` : '';
  return `${b.counts.done}/${st.fed} jobs, ${b.counts.inFlight} in flight, ${failed} not completed, ${rateText(b.completeRate)}/s, ETA ${etaText(b, now)}, ${spendText(b.spend)}${waiting}`;
}

/** One line per stage: its inputs, its jobs, whether its feed is closed. */
export function stageLines(s: PipelineState, now = Date.now()): string[] {
  return s.stages.map(
    (st) =>
      `  ${st.name.padEnd(16)} ${String(st.active).padStart(6)} inputs here  ${stageJobsText(st, now)}${st.closed ? '  [feed closed]' : ''}`,
  );
}

/** The inputs: done of total, in flight, by final status, the pipeline's spend and why it stopped. */
export function inputsText(s: PipelineState, now = Date.now()): string {
  const total = s.counts.total !== undefined ? `/${s.counts.total}` : '';
  const spend = s.spend !== undefined ? `, ${spendText(s.spend)}` : '';
  const stopped = s.stopped !== undefined ? `, stopped: ${s.stopped}` : '';
  return `${s.counts.done}${total} inputs done, ${s.counts.inFlight} in flight [${byStatusText(s.counts.byStatus)}]${spend}${stopped}, ${duration((s.endedAt ?? now) - s.startedAt)}`;
}

/** The pipeline's progress: the inputs, then a line per stage. */
export function progressText(s: PipelineState, now = Date.now()): string {
  return [`${s.pipelineId} (${s.name}) ${s.phase}: ${inputsText(s, now)}`, ...stageLines(s, now)].join('\n');
}

export function statusText(v: PipelineView): string {
  if (!v.state) return `${v.workflowId}: ${v.workflowStatus} (no state: no daemon answers; see its summary.json)`;
  return `${v.workflowId}: ${v.workflowStatus}\n${progressText(v.state)}\n  results in ${v.state.outDir}`;
}
