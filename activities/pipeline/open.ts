/**
 * The start of a pipeline's run: the input is checked and counted, the definition kept for the
 * steps, and each stage's batch input made: an open feed under `<out>/stages/<name>/`, read as
 * bodies (a row carries the stage's policy), with the stage's batch options and the pipeline's
 * deadline. The pipeline's `maxCost` is not passed on: it caps the sum of the stages' spend, which
 * the pipeline workflow enforces itself (workflows/pipeline/workflow.ts).
 */
import { pipelineKeys, stageDirs } from '../../contracts/names';
import { BatchWorkflowInput, type RunScope } from '../../contracts';
import { batchInput } from '../../results/batch/locations';
import { type ObjectStore } from '../../results/store/object-store';
import { type PipelineSpec } from './plan';
import { prepareRerun } from './rerun';

export interface PipelineOpenRequest extends PipelineSpec {
  run: RunScope;
  source: string;
  outDir: string;
}

export interface PipelineOpened {
  total: number;
  /** The input of each stage's batch workflow, in order. */
  stages: BatchWorkflowInput[];
}

/** Opens the run; false when there is no input. */
export async function openPipeline(
  store: ObjectStore,
  req: PipelineOpenRequest,
  beat: () => void = () => undefined,
): Promise<PipelineOpened | false> {
  const def = req.definition;
  if (req.attempt !== undefined) await prepareRerun(store, { ...req, attempt: req.attempt }, beat);
  const input = batchInput(req.source);
  if (!(await input.exists())) return false;
  const spec: PipelineSpec = { definition: def, endpoints: req.endpoints };
  if (req.attempt !== undefined) spec.attempt = req.attempt;
  await store.put(pipelineKeys.definition(req.run), spec);
  const stages = def.stages.map((s, k) => {
    const dirs = stageDirs(req.outDir, s.name, req.attempt);
    return BatchWorkflowInput.parse({
      endpointId: req.endpoints[k],
      source: dirs.feed,
      outDir: dirs.out,
      feed: true,
      options: {
        concurrency: s.concurrency,
        priority: s.priority,
        retry: s.retry,
        completion: s.completion,
        inputFormat: 'body',
        ...(s.keyPath !== undefined ? { keyPath: s.keyPath } : {}),
        ...(s.keyLimit !== undefined ? { keyLimit: s.keyLimit } : {}),
        ...(s.pricePerHour !== undefined ? { pricePerHour: s.pricePerHour } : {}),
        ...(def.deadline !== undefined ? { deadline: def.deadline } : {}),
      },
    });
  });
  return { total: (await input.count()).lines, stages };
}
