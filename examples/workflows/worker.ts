/**
 * The user's own worker of the examples (two-batches, two-stages), on the user's own task queue beside sluice's
 * daemon: it runs the user's workflows and activities; sluice's daemon runs the children they
 * start. Settings: TEMPORAL_ADDRESS (localhost:7233), TEMPORAL_NAMESPACE (default), TASK_QUEUE
 * (my-workflows), SLUICE_RESULTS_URL or SLUICE_RESULTS_DIR (the results store sluice's daemon
 * uses). Run: `tsx examples/workflows/worker.ts`; it stops on SIGINT or SIGTERM.
 */
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { SluiceClient } from '../../client';
import { createAggregateActivities } from './activities';

async function main(): Promise<void> {
  const address = process.env.TEMPORAL_ADDRESS ?? 'localhost:7233';
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const taskQueue = process.env.TASK_QUEUE ?? 'my-workflows';
  const connection = await Connection.connect({ address });
  const sluice = new SluiceClient({
    client: new Client({ connection, namespace }),
    resultsUrl: process.env.SLUICE_RESULTS_URL ?? process.env.SLUICE_RESULTS_DIR ?? '.data/results',
  });
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    namespace,
    taskQueue,
    workflowsPath: require.resolve('./workflows'),
    activities: createAggregateActivities(sluice),
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => worker.shutdown());
  console.log(`worker running on task queue ${taskQueue}`);
  await worker.run();
  await connection.close();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
