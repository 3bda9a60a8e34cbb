/** Watching a job live for `sluice run`: phase lines and stream chunks from one writer, in order, until it ends. */
import { WorkflowFailedError } from '@temporalio/client';
import { type JobWorkflowResult } from '../../../contracts';
import { failureMessage, failureType } from '../../failures';
import { type JobClient } from '../../job';
import { EXIT_CODES } from '../exit-codes';
import { describeResult, exitCodeOf, phaseLabel } from './output';

const chunkText = (c: unknown): string => JSON.stringify((c as { output?: unknown } | null)?.output ?? c);

/** Prints a finished job's result (text or JSON); returns its exit code. */
export async function printResult(
  sluice: JobClient,
  workflowId: string,
  r: JobWorkflowResult,
  json: boolean,
): Promise<number> {
  const output = await sluice.output(r);
  const streamFiles = r.streamChunks > 0 ? await sluice.streamFiles(workflowId) : [];
  if (json) console.log(JSON.stringify({ workflowId, ...r, output, ...(streamFiles.length ? { streamFiles } : {}) }));
  else console.log(describeResult(r, output, workflowId, streamFiles));
  return exitCodeOf(r.status);
}

/** Prints a failed or cancelled job (the workflow's failure); returns its exit code. */
export function printFailure(workflowId: string, err: unknown, json: boolean): number {
  const type = failureType(err);
  const cancelled = type === 'CANCELLED';
  const message = err instanceof WorkflowFailedError ? failureMessage(err) : (err as Error).message;
  if (json)
    console.log(JSON.stringify({ workflowId, status: cancelled ? 'CANCELLED' : 'FAILED', failure: type, message }));
  else console.log(`job ${cancelled ? 'cancelled' : 'failed'}: ${message}`);
  return cancelled ? EXIT_CODES.cancelled : EXIT_CODES.failed;
}

/**
 * Shows phase changes (and, with `stream`, each chunk as the daemon stores it) until the job
 * ends; every chunk is printed before the final phase line. Returns the exit code.
 */
export async function watch(
  sluice: JobClient,
  workflowId: string,
  o: { json: boolean; stream: boolean },
): Promise<number> {
  let last = '';
  let printed = 0;
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
  };
  process.once('SIGINT', onSigint);
  const resultP = sluice.result(workflowId).then(
    (r) => ({ r }),
    (err: unknown) => ({ err }),
  );
  const printChunks = async (): Promise<void> => {
    if (!o.stream || o.json) return;
    const chunks = await sluice.streamChunks(workflowId);
    for (const c of chunks.slice(printed)) console.log(`  chunk ${chunkText(c)}`);
    printed = Math.max(printed, chunks.length);
  };
  const time = (): string => new Date().toISOString().slice(11, 23);
  try {
    for (;;) {
      const done = await Promise.race([resultP, new Promise<undefined>((r) => setTimeout(() => r(undefined), 300))]);
      if (interrupted) {
        console.error(`stopped watching; the job goes on: sluice status ${workflowId}`);
        return EXIT_CODES.interrupted;
      }
      const view = await sluice.state(workflowId).catch(() => undefined);
      // The chunks stored so far come before the phase line (after `done`, none follows).
      await printChunks();
      const st = view?.state;
      const line =
        view && st
          ? `${phaseLabel(view)}${st.remoteJobId && st.phase !== 'done' ? `  remote ${st.remoteJobId}` : ''}${view.progress !== undefined ? `  progress ${JSON.stringify(view.progress)}` : ''}`
          : '';
      if (!o.json && line && line !== last) console.log(`  ${time()}  ${line}`);
      last = line || last;
      if (!done) continue;
      if ('err' in done) return printFailure(workflowId, done.err, o.json);
      return await printResult(sluice, workflowId, done.r, o.json);
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}
