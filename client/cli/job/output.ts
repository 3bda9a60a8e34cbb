/** How the job commands show jobs to people: exit codes, phase labels, results. */
import { type JobWorkflowResult } from '../../../contracts';
import { type JobView } from '../../job';
import { EXIT_CODES } from '../exit-codes';

/** Exit code of a finished job: scripts tell success, failure and cancel apart. */
export function exitCodeOf(status: string | undefined): number {
  if (status === 'COMPLETED') return EXIT_CODES.ok;
  if (status === 'CANCELLED') return EXIT_CODES.cancelled;
  return EXIT_CODES.failed;
}

/** Exit code of a job in any state (`status`, `result`): 4 while it runs, else as {@link exitCodeOf}. */
export function exitCodeOfView(v: JobView): number {
  if (v.workflowStatus === 'RUNNING') return EXIT_CODES.running;
  if (v.result) return exitCodeOf(v.result.status);
  return v.workflowStatus === 'CANCELLED' ? EXIT_CODES.cancelled : EXIT_CODES.failed;
}

const REMOTE_LABELS: Record<string, string> = { IN_QUEUE: 'queued', IN_PROGRESS: 'running' };

/** The job's phase in words: `queued`, `running`, `retrying after FAILED (attempt 2 next)`, ... */
export function phaseLabel(v: JobView): string {
  const st = v.state;
  if (!st) return v.workflowStatus.toLowerCase();
  const remote = v.remote?.status ?? st.status;
  const attempt = st.attempt > 1 ? ` (attempt ${st.attempt})` : '';
  switch (st.phase) {
    case 'submitting':
      return `submitting${attempt}`;
    case 'waiting':
      return `${remote ? (REMOTE_LABELS[remote] ?? remote.toLowerCase()) : 'waiting'}${attempt}`;
    case 'backing-off':
      return `retrying after ${st.status ?? 'a failure'} (attempt ${st.attempt + 1} after a backoff)`;
    case 'retrying':
      return `retrying after ${st.status ?? 'a failure'} (attempt ${st.attempt}, /retry)`;
    case 'cancelling':
      return 'cancelling the remote job';
    case 'done':
      return `done: ${st.status ?? ''}`;
  }
}

/** A result as a person reads it; `streamFiles` are where the stream chunks are kept. */
export function describeResult(
  r: JobWorkflowResult,
  output: unknown,
  workflowId: string,
  streamFiles: string[] = [],
): string {
  const lines = [`status      ${r.status}`];
  if (r.delayTime !== undefined) lines.push(`delay       ${r.delayTime} ms`);
  if (r.executionTime !== undefined) lines.push(`execution   ${r.executionTime} ms`);
  lines.push(`attempts    ${r.attempts.map((a) => `${a.number}:${a.how}:${a.status}`).join('  ')}`);
  if (r.streamChunks > 0) {
    lines.push(`stream      ${r.streamChunks} chunks in ${streamFiles.join(', ') || '(the results store)'}`);
    lines.push(`            print them: sluice result ${workflowId} --chunks`);
  }
  if (r.error) lines.push(`error       ${r.error}`);
  if (output !== undefined)
    lines.push(`output      ${JSON.stringify(output, null, 2).replace(/\n/g, '\n            ')}`);
  return lines.join('\n');
}
