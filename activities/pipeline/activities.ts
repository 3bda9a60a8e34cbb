/**
 * The pipeline activities, bound to the results store: open (check the input, keep the
 * definition), step (./step.ts: the stages' outcomes into the next stages' feeds and the results)
 * and finish (./finish.ts: the output files). Expressions are evaluated here, never in the workflow.
 */
import { FailureType } from '../../contracts/names';
import { isS3Location } from '../../results/batch/locations';
import { batchLocationRefusal, type BatchRoots } from '../../results/batch/roots';
import { type ObjectStore } from '../../results/store/object-store';
import { fatal, toFailure } from '../errors';
import { beat, whileBeating } from '../heartbeat';
import { isPlatformApiError } from '../../platform-api';
import { type QueueMethods } from '../service-calls';
import { finishPipeline, type PipelineFinishRequest, type PipelineFinishResult } from './finish';
import { openPipeline, type PipelineOpened, type PipelineOpenRequest } from './open';
import { pipelineStep, type SignalFeed } from './step';
import { type PipelineStepRequest, type PipelineStepResult } from './types';
import { type AskControls, phaseEndsRounds } from './watch';
import { type PipelineState } from '../../contracts';

export type { PipelineStepRequest, PipelineStepResult, StageCursor, Cursor } from './types';
export type { PipelineFinishRequest, PipelineFinishResult } from './finish';
export type { PipelineOpened, PipelineOpenRequest } from './open';

export interface PipelineActivityDeps {
  store: ObjectStore;
  /** The service: each stage's endpoint is checked when the pipeline opens. */
  queue?: Pick<QueueMethods, 'health'>;
  /** Where pipelines may read and write (SLUICE_BATCH_ROOTS, as batches); without it, anywhere the daemon can reach. */
  roots?: BatchRoots;
  /** A batch's spend (USD) as its state says it (the batch's own accounting); without it a pipeline's `maxCost` sees no spend. */
  batchSpend?: (batchId: string) => Promise<number>;
  /** Tells a stage's batch how far its feed goes (the `batchFeed` signal); without it the workflow does. */
  signalFeed?: SignalFeed;
  /** The pipeline's state as its workflow says it (a step's rounds end once it is paused or cancelling). */
  pipelineState?: (pipelineWorkflowId: string) => Promise<PipelineState>;
}

/** How long the stages' batches may take to tell their spend before the step goes on without it, ms. */
const SPEND_TIMEOUT_MS = 5000;

/** The sum of the stages' spend; undefined when a batch did not answer in time (the workflow keeps what it knew). */
async function stagesSpend(
  ask: (batchId: string) => Promise<number>,
  stages: PipelineStepRequest['stages'],
): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), SPEND_TIMEOUT_MS)));
  const all = Promise.all(stages.map((s) => ask(s.run.workflowId))).then(
    (spends) => spends.reduce((a, b) => a + b, 0),
    () => undefined,
  );
  return Promise.race([all, late]).finally(() => clearTimeout(timer));
}

/**
 * Runs `work` heartbeating `detail` at its own beats and every second whatever it does (a wait for
 * outcomes, a store call, a plan: ../heartbeat.ts keepBeating), so the workflow's 3 s heartbeat
 * timeout (workflows/pipeline/workflow.ts `acts`) says its daemon died, never that a call was slow.
 */
const beating = <T>(detail: unknown, work: (beat: () => void) => Promise<T>): Promise<T> =>
  whileBeating(() => {
    beat(detail);
    return work(() => beat(detail));
  });

/**
 * How a step's rounds ask for the pipeline's controls: its workflow's phase ({@link phaseEndsRounds}: cancelling,
 * paused while the step reads, resumed while it does not) and, with a cost cap, the stages' spend.
 */
function controlsOf(deps: PipelineActivityDeps, req: PipelineStepRequest): AskControls {
  const step = { reading: req.read !== undefined, sawPaused: false };
  return async (spend) => {
    const [state, spent] = await Promise.all([
      deps.pipelineState?.(req.run.workflowId).catch(() => undefined),
      spend && deps.batchSpend ? stagesSpend(deps.batchSpend, req.stages) : undefined,
    ]);
    if (state?.phase === 'paused') step.sawPaused = true;
    const halted = phaseEndsRounds(state?.phase, step);
    return { halted, ...(spent !== undefined ? { spend: spent } : {}) };
  };
}

export function createPipelineActivities(deps: PipelineActivityDeps) {
  const { store, roots } = deps;
  const check = (req: { source: string; outDir?: string }): void => {
    const refusal = roots && batchLocationRefusal({ source: req.source, outDir: req.outDir }, roots);
    if (refusal) throw fatal(FailureType.BAD_REQUEST, refusal, { source: req.source, outDir: req.outDir });
  };
  return {
    /** Checks the input, keeps the definition for the steps; returns the number of inputs and the stages' batch inputs. */
    openPipeline: (req: PipelineOpenRequest): Promise<PipelineOpened> =>
      beating({ opening: true }, async (b) => {
        check(req);
        // A stage on an endpoint that does not exist would hold its inputs for ever: refused here, as a batch's.
        for (const endpointId of new Set(req.endpoints)) {
          try {
            await deps.queue?.health(endpointId);
          } catch (err) {
            if (isPlatformApiError(err, 'NOT_FOUND'))
              throw fatal(FailureType.ENDPOINT_NOT_FOUND, `endpoint ${endpointId} not found`, { endpointId });
            throw toFailure(err);
          }
        }
        const opened = await openPipeline(store, req, b);
        if (!opened) {
          const where = isS3Location(req.source) ? 'input object' : 'input file';
          throw fatal(FailureType.BAD_REQUEST, `${where} ${req.source} not found (it must be readable by the daemon)`, {
            source: req.source,
          });
        }
        return opened;
      }),
    /** One step of the pipeline (activities/pipeline/step.ts). */
    pipelineStep: (req: PipelineStepRequest): Promise<PipelineStepResult> =>
      beating({ seq: req.seq }, async (b) => {
        check(req);
        const res = await pipelineStep(store, req, b, deps.signalFeed, controlsOf(deps, req));
        const spend = req.spend && deps.batchSpend ? await stagesSpend(deps.batchSpend, req.stages) : undefined;
        return spend !== undefined ? { ...res, spend } : res;
      }),
    /** Writes the output files. */
    finishPipeline: (req: PipelineFinishRequest): Promise<PipelineFinishResult> =>
      beating({ finishing: true }, (b) => {
        check(req);
        return finishPipeline(store, req, b);
      }),
  };
}

export type PipelineActivities = ReturnType<typeof createPipelineActivities>;
