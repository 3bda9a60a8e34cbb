/** What each `sluice batch` command does (commands.ts registers them; `start` is in start.ts): status, watch, pause, resume, cancel, rerun, results, list. */
import { type BatchOptionsInput } from '../../../contracts';
import { batchWorkflowId } from '../../../contracts/names/batch';
import { type BatchClient } from '../../batch';
import { BatchRerunError, type BatchRerunRefusal } from '../../batch-rerun';
import { batchExitCode, batchView, statusTable } from './output';
import { connectCli, withExisting } from '../context';
import { watchOptions, type WatchFlags } from './parse';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';

export interface IdOptions {
  json?: boolean;
  failed?: boolean;
  limit?: number;
  dataDir: string;
}

/** Runs `fn` on an existing batch (`no batch ID` otherwise, exit 2). */
const withBatch = (
  rawId: string,
  o: { dataDir: string },
  fn: (batch: BatchClient, id: string) => Promise<number>,
): Promise<number> => withExisting(o.dataDir, batchWorkflowId(rawId), 'batch', 'batch', fn);

export const status = (rawId: string, o: IdOptions) =>
  withBatch(rawId, o, async (batch, id) => {
    const v = await batchView(batch, id);
    console.log(o.json ? JSON.stringify(v) : statusTable(v));
    return batchExitCode(v);
  });

export const watch = (rawId: string, o: WatchFlags) =>
  withBatch(rawId, o, async (batch, id) => (await import('./progress')).watchBatch(batch, id, watchOptions(o)));

/** `pause` (pausing) or `resume`: only a running batch (an ended one: exit 1, like `cancel`). */
export const control = (pausing: boolean) => (rawId: string, o: IdOptions) =>
  withBatch(rawId, o, async (batch, id) => {
    const v = await batch.view(id);
    if (v.workflowStatus !== 'RUNNING') {
      if (o.json)
        console.log(
          JSON.stringify({ workflowId: id, workflowStatus: v.workflowStatus, [pausing ? 'paused' : 'resumed']: false }),
        );
      else
        console.error(
          `sluice: ${id} already ended ${v.workflowStatus}; it can no longer be ${pausing ? 'paused' : 'resumed'}`,
        );
      return EXIT_CODES.failed;
    }
    const s = pausing ? await batch.pause(id) : await batch.resume(id);
    if (o.json) console.log(JSON.stringify(s));
    else
      console.log(
        pausing
          ? `${id}: paused (${s.counts.inFlight} in flight); sluice batch resume ${id} goes on`
          : `${id}: resumed (${s.phase}); sluice batch watch ${id} shows it`,
      );
    return EXIT_CODES.ok;
  });

export const cancel = (rawId: string, o: IdOptions) =>
  withBatch(rawId, o, async (batch, id) => {
    const v = await batch.view(id);
    if (v.workflowStatus !== 'RUNNING') {
      if (o.json) console.log(JSON.stringify({ workflowId: id, workflowStatus: v.workflowStatus, cancelled: false }));
      else console.error(`sluice: ${id} already ended ${v.workflowStatus}; nothing to cancel`);
      return EXIT_CODES.failed;
    }
    await batch.cancel(id);
    await batch.result(id).catch(() => undefined);
    const after = await batchView(batch, id);
    if (o.json) console.log(JSON.stringify(after));
    else
      console.log(
        after.workflowStatus === 'CANCELLED'
          ? `${id}: CANCELLED (in-flight jobs cancelled, unsent inputs NOT_SUBMITTED); results in ${after.state?.outDir ?? 'its output dir'}`
          : `${id}: ended ${after.workflowStatus} before the cancel took effect`,
      );
    return after.workflowStatus === 'CANCELLED' ? EXIT_CODES.ok : EXIT_CODES.failed;
  });

export const results = (rawId: string, o: IdOptions) =>
  withBatch(rawId, o, async (batch, id) => {
    for await (const line of batch.results(id))
      if (!o.failed || line.status !== 'COMPLETED') console.log(JSON.stringify(line));
    const v = await batchView(batch, id);
    if (v.workflowStatus === 'RUNNING' && !o.json)
      console.error(`${id} is still running: these are the outcomes so far`);
    return batchExitCode(v);
  });

export interface RerunFlags extends WatchFlags {
  includeCancelled?: boolean;
  concurrency?: number;
  maxAttempts?: number;
  maxCost?: number;
  deadline?: number;
  detach?: boolean;
}

/** Exit code of each refusal: still running 4 (like `status`), nothing to re-run 1 (like `cancel` of an ended batch). */
const REFUSED: Record<BatchRerunRefusal, number> = {
  BATCH_NOT_FOUND: EXIT_CODES.usage,
  BATCH_RUNNING: EXIT_CODES.running,
  NOTHING_TO_RERUN: EXIT_CODES.failed,
  NO_OUTCOMES: EXIT_CODES.failed,
};

/** `rerun`: a new run of the batch over its failed inputs, watched like `start` unless --detach. */
export const rerun = (rawId: string, o: RerunFlags) =>
  withBatch(rawId, o, async (batch, id) => {
    const options: BatchOptionsInput = {
      ...(o.concurrency ? { concurrency: o.concurrency } : {}),
      ...(o.maxAttempts ? { retry: { maxAttempts: o.maxAttempts } } : {}),
      ...(o.maxCost ? { maxCost: o.maxCost } : {}),
      ...(o.deadline ? { deadline: o.deadline } : {}),
    };
    const started = await batch
      .rerunFailed(id, { includeCancelled: o.includeCancelled ?? false, options })
      .catch((err: unknown) => {
        if (!(err instanceof BatchRerunError)) throw err;
        return err;
      });
    if (started instanceof BatchRerunError) {
      if (started.code === 'BATCH_NOT_FOUND') throw new UsageError(started.message);
      if (o.json)
        console.log(JSON.stringify({ workflowId: id, rerun: false, code: started.code, message: started.message }));
      else console.error(`sluice: ${started.message}`);
      return REFUSED[started.code];
    }
    const what = `${started.inputs ?? 'the failed'} input${started.inputs === 1 ? '' : 's'}`;
    if (o.detach) {
      console.log(o.json ? JSON.stringify(started) : id);
      return EXIT_CODES.ok;
    }
    if (!o.json)
      console.log(
        `re-running ${what} of ${id} (attempt ${started.attempt}); results in ${started.outDir}\n(Ctrl-C stops watching, not the batch)`,
      );
    return await (await import('./progress')).watchBatch(batch, id, watchOptions(o));
  });

export const list = async (o: IdOptions): Promise<number> => {
  const cli = await connectCli(o.dataDir, ['batch']);
  try {
    const batches = await cli.batch.list({ limit: o.limit ?? 50 });
    if (o.json) console.log(JSON.stringify(batches));
    else if (batches.length === 0) console.log('no batches');
    else
      for (const b of batches)
        console.log(
          `${b.workflowId.padEnd(44)} ${b.status.padEnd(12)} started ${b.startTime.toISOString()}${b.closeTime ? `  ended ${b.closeTime.toISOString()}` : ''}`,
        );
    return EXIT_CODES.ok;
  } finally {
    await cli.close();
  }
};
