/** What each `sluice pipeline` command does (commands.ts registers them; `start` is in start.ts): status, watch, pause, resume, cancel, rerun, results, list. */
import { pipelineWorkflowId } from '../../../contracts';
import { type PipelineClient } from '../../pipeline';
import { PipelineRerunError } from '../../pipeline-rerun';
import { connectCli, withExisting } from '../context';
import { onCtrlC } from '../ctrl-c';
import { EXIT_CODES } from '../exit-codes';
import { UsageError } from '../errors';
import { pipelineExitCode, pipelineView, progressText, statusText } from './output';
import { pipelineBars } from './progress';

export interface WatchFlags {
  json?: boolean;
  interval: number;
  dataDir: string;
}

export interface RerunFlags extends WatchFlags {
  detach?: boolean;
}

/** Exit codes of a refused rerun. */
const RERUN_REFUSED = {
  PIPELINE_NOT_FOUND: EXIT_CODES.usage,
  PIPELINE_RUNNING: EXIT_CODES.running,
  NOTHING_TO_RERUN: EXIT_CODES.failed,
  NO_OUTCOMES: EXIT_CODES.failed,
} as const;

export interface IdOptions {
  json?: boolean;
  failed?: boolean;
  stage?: string;
  limit?: number;
  dataDir: string;
}

const POLL_MS = 1000;

/** Runs `fn` on an existing pipeline (`no pipeline ID` otherwise, exit 2). */
const withPipeline = (
  rawId: string,
  o: { dataDir: string },
  fn: (pipeline: PipelineClient, id: string) => Promise<number>,
): Promise<number> => withExisting(o.dataDir, pipelineWorkflowId(rawId), 'pipeline', 'pipeline', fn);

/**
 * Shows the pipeline until it ends (its progress and a line per stage every `intervalMs`; with
 * `json` its view as JSON lines, the last one final); the pipeline's exit code, 130 on Ctrl-C.
 */
export async function watchPipeline(
  pipeline: PipelineClient,
  id: string,
  o: { json: boolean; intervalMs: number; tty?: boolean },
): Promise<number> {
  const ctrlC = onCtrlC();
  // On a terminal: a bar for the inputs and one per stage, redrawn every poll (stderr); elsewhere lines every interval.
  const bars = !o.json && (o.tty ?? Boolean(process.stderr.isTTY)) ? pipelineBars() : undefined;
  let last = 0;
  try {
    for (;;) {
      const v = await pipelineView(pipeline, id);
      if (ctrlC.pressed) break;
      const ended = v.workflowStatus !== 'RUNNING';
      if (bars && v.state && !ended) bars.show(v.state);
      else if (ended || Date.now() - last >= o.intervalMs) {
        bars?.stop();
        if (o.json) console.log(JSON.stringify(v));
        else if (ended) console.log(statusText(v));
        else if (v.state) console.log(progressText(v.state));
        last = Date.now();
      }
      if (ended) return pipelineExitCode(v);
      if (await ctrlC.pause(POLL_MS)) break;
    }
    bars?.stop();
    console.error(`\nstopped watching; the pipeline keeps running. Re-attach: sluice pipeline watch ${id}`);
    return EXIT_CODES.interrupted;
  } finally {
    bars?.stop();
    ctrlC.dispose();
  }
}

export const status = (rawId: string, o: IdOptions) =>
  withPipeline(rawId, o, async (pipeline, id) => {
    const v = await pipelineView(pipeline, id);
    console.log(o.json ? JSON.stringify(v) : statusText(v));
    return pipelineExitCode(v);
  });

export const watch = (rawId: string, o: WatchFlags) =>
  withPipeline(rawId, o, (pipeline, id) =>
    watchPipeline(pipeline, id, { json: o.json ?? false, intervalMs: o.interval * 1000 }),
  );

/** `pause` (pausing) or `resume`: only a running pipeline (an ended one: exit 1). */
export const control = (pausing: boolean) => (rawId: string, o: IdOptions) =>
  withPipeline(rawId, o, async (pipeline, id) => {
    const v = await pipeline.view(id);
    if (v.workflowStatus !== 'RUNNING') {
      console.error(
        `sluice: ${id} already ended ${v.workflowStatus}; it can no longer be ${pausing ? 'paused' : 'resumed'}`,
      );
      return EXIT_CODES.failed;
    }
    const s = pausing ? await pipeline.pause(id) : await pipeline.resume(id);
    if (o.json) console.log(JSON.stringify(s));
    else
      console.log(
        pausing
          ? `${id}: paused (no new input read, every stage paused; ${s.counts.inFlight} inputs in flight); sluice pipeline resume ${id} goes on`
          : `${id}: resumed; sluice pipeline watch ${id} shows it`,
      );
    return EXIT_CODES.ok;
  });

export const cancel = (rawId: string, o: IdOptions) =>
  withPipeline(rawId, o, async (pipeline, id) => {
    const v = await pipeline.view(id);
    if (v.workflowStatus !== 'RUNNING') {
      console.error(`sluice: ${id} already ended ${v.workflowStatus}; nothing to cancel`);
      return EXIT_CODES.failed;
    }
    await pipeline.cancel(id);
    await pipeline.result(id).catch(() => undefined);
    const after = await pipelineView(pipeline, id);
    if (o.json) console.log(JSON.stringify(after));
    else
      console.log(
        after.workflowStatus === 'CANCELLED'
          ? `${id}: CANCELLED (jobs in flight in every stage cancelled, inputs not ended CANCELLED or NOT_SUBMITTED)`
          : `${id}: ended ${after.workflowStatus} before the cancel took effect`,
      );
    return after.workflowStatus === 'CANCELLED' ? EXIT_CODES.ok : EXIT_CODES.failed;
  });

/** `rerun ID`: the FAILED inputs again, each from the stage where it failed; watched unless --detach. */
export const rerun = (rawId: string, o: RerunFlags) =>
  withPipeline(rawId, o, async (pipeline, id) => {
    const started = await pipeline.rerun(id).catch((err: unknown) => {
      if (!(err instanceof PipelineRerunError)) throw err;
      if (o.json) console.log(JSON.stringify({ rerun: false, code: err.code, message: err.message }));
      else console.error(`sluice: ${err.message}`);
      return RERUN_REFUSED[err.code];
    });
    if (typeof started === 'number') return started;
    if (o.detach) {
      console.log(o.json ? JSON.stringify(started) : started.workflowId);
      return EXIT_CODES.ok;
    }
    if (!o.json)
      console.log(
        `rerun of ${id} started (attempt ${started.attempt}, ${started.inputs} failed inputs, each from the stage where it failed); results in ${started.outDir}`,
      );
    return watchPipeline(pipeline, id, { json: o.json ?? false, intervalMs: o.interval * 1000 });
  });

export const results = (rawId: string, o: IdOptions) =>
  withPipeline(rawId, o, async (pipeline, id) => {
    if (o.stage !== undefined) {
      const input = await pipeline.inputOf(id);
      const names = input.definition.stages.map((s) => s.name);
      if (!names.includes(o.stage))
        throw new UsageError(`no stage ${o.stage} in ${id} (its stages: ${names.join(', ')})`);
    }
    for await (const line of pipeline.results(id)) {
      if (o.failed && (line.status === 'COMPLETED' || line.status === 'SKIPPED')) continue;
      if (o.stage !== undefined && line.stage !== o.stage) continue;
      console.log(JSON.stringify(line));
    }
    const v = await pipelineView(pipeline, id);
    if (v.workflowStatus === 'RUNNING' && !o.json)
      console.error(`${id} is still running: these are the results so far`);
    return pipelineExitCode(v);
  });

export const list = async (o: IdOptions): Promise<number> => {
  const cli = await connectCli(o.dataDir, ['pipeline']);
  try {
    const pipelines = await cli.pipeline.list({ limit: o.limit ?? 50 });
    if (o.json) console.log(JSON.stringify(pipelines));
    else if (pipelines.length === 0) console.log('no pipelines');
    else
      for (const p of pipelines)
        console.log(
          `${p.workflowId.padEnd(44)} ${p.status.padEnd(12)} started ${p.startTime.toISOString()}${p.closeTime ? `  ended ${p.closeTime.toISOString()}` : ''}`,
        );
    return EXIT_CODES.ok;
  } finally {
    await cli.close();
  }
};
