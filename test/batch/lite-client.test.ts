/**
 * The light client of `sluice batch start` (client/batch-lite.ts over temporal-lite.ts: Node's
 * http2, protobuf fields by number) against the full client on the real stack: the same input
 * recorded, the same views and results, continued runs followed, a taken id and an ended batch
 * reported as the full client reports them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BatchLiteClient } from '../../client/batch-lite';
import { batchInputOf } from '../../client/batch-rerun';
import { batchStatus } from '../../client/batch-status';
import { GRPC_CODES, GrpcError, WorkflowEndedError } from '../../client/temporal-lite';
import { batchStartOf } from '../../client/batch-start';
import { TASK_QUEUE } from '../../contracts/names/common';
import { eventually } from '../helpers/platform';
import { batchStack, inputFile, mixedEndpoint, resultsOf } from './helpers';

describe('the light batch client', () => {
  const ctx = batchStack();
  const lite = () => new BatchLiteClient({ address: ctx.s.env.address, namespace: 'default', taskQueue: TASK_QUEUE });

  it('starts the input the full client would, views it live and follows its continued runs to the result', async () => {
    const ep = mixedEndpoint(ctx.s, 'lite-can', 2);
    // 60 x 150 ms at 2 at a time: 4.5 s of work, more than two steps' refills (1 s each), so the run continues as new.
    const lines = Array.from({ length: 60 }, (_, i) => ({ kind: 'sleep', ms: 150, i }));
    const { file, dir } = inputFile(lines);
    const init = { id: `lite-${Date.now()}`, endpointId: ep, source: file, outDir: join(dir, 'out') };
    const options = { concurrency: 2, stepsPerRun: 2 };
    const client = lite();
    try {
      const id = await client.start({ ...init, options });
      expect(await batchInputOf(ctx.s.env.client, id)).toEqual((await batchStartOf({ ...init, options })).input);
      await eventually(async () => ((await client.view(id)).state?.counts.done ?? 0) > 0, 30_000);
      const running = await client.view(id);
      expect(running).toMatchObject({ workflowId: id, workflowStatus: 'RUNNING', state: { counts: { total: 60 } } });

      const summary = await client.result(id);
      expect(summary.runs).toBeGreaterThan(1);
      expect(summary).toEqual(await ctx.batch.result(id));
      expect(summary.counts.byStatus).toEqual({ COMPLETED: 60 });
      resultsOf(
        init.outDir,
        lines.map((_, i) => i),
      );
      expect((await client.view(id)).workflowStatus).toBe('COMPLETED');
      expect(await batchStatus(client, id)).toEqual(await batchStatus(ctx.batch, id));

      const again = client.start({ ...init, options });
      await expect(again).rejects.toBeInstanceOf(GrpcError);
      await expect(again).rejects.toMatchObject({ code: GRPC_CODES.alreadyExists });
    } finally {
      client.close();
    }
  });

  it('reports an ended batch as the full client does: terminated, with its reason; an unknown one: not found', async () => {
    const ep = mixedEndpoint(ctx.s, 'lite-end', 1);
    const { file, dir } = inputFile(Array.from({ length: 20 }, () => ({ kind: 'sleep', ms: 2000 })));
    const client = lite();
    try {
      const id = await client.start({ endpointId: ep, source: file, outDir: join(dir, 'out'), options: {} });
      const ended = client.result(id);
      ended.catch(() => undefined);
      await ctx.s.env.client.workflow.getHandle(id).terminate('stopped by the test');
      await expect(ended).rejects.toBeInstanceOf(WorkflowEndedError);
      await expect(ended).rejects.toMatchObject({ status: 'TERMINATED', cause: { message: 'stopped by the test' } });
      const status = await batchStatus(client, id);
      expect(status).toMatchObject({ workflowStatus: 'TERMINATED', failure: 'stopped by the test' });
      expect(status).toEqual(await batchStatus(ctx.batch, id));
      await expect(client.view('batch/none-such')).rejects.toMatchObject({ code: GRPC_CODES.notFound });
    } finally {
      client.close();
    }
  });
});
