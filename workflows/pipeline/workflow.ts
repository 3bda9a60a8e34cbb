/**
 * A pipeline, durably: each stage is a batch (a child batch workflow whose source is an open feed);
 * a loop of steps (activities) moves every input whose stage is done into the next stage's feed or
 * to its end, reads new inputs within `maxInFlight`, and tells each stage's batch how far its feed
 * goes and when it is closed. History holds cursors and counts only; continue-as-new carries them.
 */
import {
  CancellationScope,
  CancelledFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { ACTIVITY_RETRY } from '../../contracts/retry-rule';
import { PIPELINE_PATCHES, pipelineRerunSource } from '../../contracts/names';
import type { PipelineState, PipelineWorkflowInput, RunScope } from '../../contracts';
import type { PipelineActivities } from '../../activities/pipeline/activities';
import { costCapReached } from '../batch/controls';
import { cancelStages, closeDrained, feedStage, startStages } from './stages';
import { pausePipelineUpdate, pipelineStateQuery, resumePipelineUpdate } from './messages';
import {
  COST_CAP,
  applyStep,
  carryOf,
  inFlight,
  newCarry,
  pipelineState,
  type PipelineCarry,
  type PipelineRun,
} from './run';

export { pausePipelineUpdate, pipelineStateQuery, resumePipelineUpdate } from './messages';

// Open and each step heartbeat every second whatever they do (activities/pipeline/activities.ts
// `beating`), so a dead daemon's step moves to another within 3 s (was 30 s: after the whole stack's
// restart, Temporal forgets which daemons polled and the new daemon's reap finds none dead). A
// change of the timeouts alone changes no command of the history (replayed as before).
const acts = proxyActivities<PipelineActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '3 seconds',
  retry: ACTIVITY_RETRY,
});
const finishing = proxyActivities<PipelineActivities>({
  startToCloseTimeout: '24 hours',
  heartbeatTimeout: '60 seconds',
  retry: ACTIVITY_RETRY,
});

/** New inputs one round of a step reads at most. */
const MAX_READ = 500;
/** Longest wait of one round for outcomes. */
const WAIT_MS = 3000;
/**
 * How long one step runs rounds at most: a step is one activity (six history events) whatever it
 * moves, so longer steps mean fewer events per input. It ends sooner once nothing is in flight, a
 * stage's feed can be closed, or a control (pause, cancel, deadline, cost cap) comes: within ~1 s.
 */
const STEP_MS = 5000;

export async function pipelineWorkflow(input: PipelineWorkflowInput, carry?: PipelineCarry): Promise<PipelineState> {
  const { workflowId, firstExecutionRunId: runId } = workflowInfo();
  const run: RunScope = { workflowId, runId };
  const r: PipelineRun = { ...(carry ?? newCarry(Date.now())), input, workflowId, phase: 'running' };
  r.runs++;
  const cancel = handleMessages(r);

  await CancellationScope.nonCancellable(async () => {
    if (!carry) await open(r, run);
    await stepLoop(r, run, cancel);
  });

  r.phase = 'finishing';
  const fin = await CancellationScope.nonCancellable(() =>
    finishing.finishPipeline({
      run,
      seq: r.seq++,
      source: sourceOf(input),
      outDir: input.outDir,
      cursor: r.cursor,
      eof: r.eof,
      reason: r.stopped ?? 'not submitted',
      state: { ...pipelineState(r), phase: 'done', endedAt: Date.now() },
    }),
  );
  if (fin.notSubmitted > 0) r.byStatus.NOT_SUBMITTED = (r.byStatus.NOT_SUBMITTED ?? 0) + fin.notSubmitted;
  if (fin.badInput > 0) r.byStatus.BAD_INPUT = (r.byStatus.BAD_INPUT ?? 0) + fin.badInput;
  r.done += fin.notSubmitted + fin.badInput;
  r.phase = 'done';
  r.endedAt = Date.now();
  if (cancel.requested) throw new CancelledFailure('pipeline cancelled');
  return pipelineState(r);
}

/** What the run reads: the input file, or a rerun's failed inputs (each with its context). */
const sourceOf = (input: PipelineWorkflowInput): string =>
  input.rerunOf ? pipelineRerunSource(input.outDir, input.rerunOf.attempt) : input.source;

/** Checks the input, keeps the definition, starts each stage's batch on its (empty, open) feed. */
async function open(r: PipelineRun, run: RunScope): Promise<void> {
  const { input } = r;
  const opened = await acts.openPipeline({
    run,
    source: sourceOf(input),
    outDir: input.outDir,
    definition: input.definition,
    endpoints: input.endpoints,
    ...(input.rerunOf ? { attempt: input.rerunOf.attempt } : {}),
  });
  r.total = opened.total;
  await startStages(r, opened.stages);
}

function handleMessages(r: PipelineRun): { requested: boolean } {
  setHandler(pipelineStateQuery, () => pipelineState(r));
  setHandler(pausePipelineUpdate, () => {
    r.paused = true;
    return pipelineState(r);
  });
  setHandler(resumePipelineUpdate, () => {
    r.paused = false;
    return pipelineState(r);
  });
  const cancel = { requested: false };
  CancellationScope.current().cancelRequested.catch(() => {
    cancel.requested = true;
    // Said at once (the state query): a step running rounds sees it and ends them.
    if (r.phase === 'running') r.phase = 'cancelling';
  });
  return cancel;
}

/** Steps until every input read has ended and the input is read (or the pipeline stopped). */
async function stepLoop(r: PipelineRun, run: RunScope, cancel: { requested: boolean }): Promise<void> {
  const { input } = r;
  const def = input.definition;
  let steps = 0;
  let cancelSent = false;
  for (;;) {
    if (cancel.requested && !cancelSent) {
      r.stopped = 'the pipeline was cancelled';
      r.phase = 'cancelling';
      cancelSent = true;
      await cancelStages(r);
    }
    if (r.stopped === undefined && def.deadline !== undefined && Date.now() >= def.deadline) r.stopped = 'deadline';
    await closeDrained(r);
    if ((r.eof || r.stopped !== undefined) && inFlight(r) === 0) return;
    if (steps >= input.options.stepsPerRun || workflowInfo().continueAsNewSuggested) {
      if (!cancel.requested) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof pipelineWorkflow>(input, carryOf(r));
      }
    }
    const room = def.maxInFlight - inFlight(r);
    const reading = !r.eof && r.stopped === undefined && !r.paused && room > 0;
    if (!reading && inFlight(r) === 0) {
      // Paused with nothing in flight: wait for a message instead of stepping.
      await condition(() => !r.paused || cancel.requested);
      continue;
    }
    const before = r.stages.map((s) => s.feed.offset);
    const res = await acts.pipelineStep({
      run,
      seq: r.seq,
      source: sourceOf(input),
      outDir: input.outDir,
      stages: r.stages.map((s) => ({
        run: s.run,
        feed: s.feed,
        ...(s.after !== undefined ? { after: s.after } : {}),
        active: s.active,
        ...(s.told !== undefined ? { told: s.told } : {}),
        ...(s.taken !== undefined ? { taken: s.taken } : {}),
      })),
      ...(reading ? { read: { from: r.cursor, max: Math.min(MAX_READ, room) } } : {}),
      ...(r.stopped !== undefined ? { stopped: r.stopped } : {}),
      waitMs: WAIT_MS,
      ...(def.maxCost !== undefined ? { spend: true } : {}),
      rounds: { inFlight: inFlight(r), ms: STEP_MS, maxRead: MAX_READ, ...(r.eof ? { eof: true } : {}) },
    });
    // A step of rounds used a seq per round (a step recorded before rounds, one).
    r.seq += res.seqs ?? 1;
    applyStep(r, res);
    steps++;
    // The cost cap (the batch's rule, over every stage's spend): read no more, and every stage's batch submits no more.
    const capped =
      r.stopped === undefined && costCapReached(def.maxCost, r.spend ?? 0) && patched(PIPELINE_PATCHES.costCap);
    if (capped) r.stopped = COST_CAP;
    // The step told the stages how far their feeds go (a step recorded before that did not: the workflow
    // tells them, as the recorded history did; the commands follow the recorded result, so it replays).
    await Promise.all(
      r.stages.map(async (s, k) => {
        if (capped || (!res.signalled && s.feed.offset !== before[k])) await feedStage(r, s);
      }),
    );
  }
}
