/** A batch's start as Temporal receives it, whichever client sends it (the full one, batch.ts; the light one, batch-lite.ts): its workflow id and its checked input. */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { type BatchWorkflowInputInit, BatchWorkflowInput } from '../contracts/batch';
import { batchWorkflowId } from '../contracts/names/batch';
import { batchInput, isS3Location } from '../results/batch/locations';
import { parseS3Url } from '../results/store/s3-url';

/** What `start` takes: the workflow input (without `retryOf`, the history name of a rerun's reference: see `rerunFailed`), an optional id, paths resolved here. */
export type BatchStart = Omit<BatchWorkflowInputInit, 'retryOf'> & { id?: string };

/**
 * The workflow id and input of a new batch: a local input file and output dir made absolute (the
 * daemon reads and writes them); `s3://` locations taken as they are. A missing input, or a bad
 * output URL, is refused before anything starts. A batch id is never reused by a new batch (its
 * output dir and results would mix): the start rejects a duplicate id.
 */
export async function batchStartOf(init: BatchStart): Promise<{ workflowId: string; input: BatchWorkflowInput }> {
  const { id, retryOf: _retryOf, ...rest } = init as BatchWorkflowInputInit & { id?: string };
  const at = (location: string): string => (isS3Location(location) ? location : resolve(location));
  const input = BatchWorkflowInput.parse({ ...rest, source: at(rest.source), outDir: at(rest.outDir) });
  if (isS3Location(input.outDir)) parseS3Url(input.outDir);
  if (!(await batchInput(input.source).exists()))
    throw new Error(`input ${isS3Location(input.source) ? 'object' : 'file'} ${input.source} not found`);
  return { workflowId: batchWorkflowId(id ?? randomUUID()), input };
}
