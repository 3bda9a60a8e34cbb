import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { GraphqlClient, QueueClient } from '../../platform-api';
import { TASK_QUEUE } from '../../contracts';
import { JobClient } from '../job';

/** What `sluice dev` leaves for the other commands, so they work without any configuration. */
export interface DevState {
  temporalAddress: string;
  namespace: string;
  uiUrl?: string;
  platformUrl: string;
  apiKey: string;
  daemonUrl: string;
  resultsDir: string;
  taskQueue: string;
}

export const DEV_STATE_FILE = join('.data', 'dev.json');

export function writeDevState(state: DevState, file = DEV_STATE_FILE): void {
  writeFileSync(file, JSON.stringify(state, null, 2));
}

export function readDevState(file = DEV_STATE_FILE): DevState | undefined {
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DevState) : undefined;
}

/** Where the CLI finds Temporal, the results and the platform: environment first, then `sluice dev`'s state. */
export function cliSettings(env = process.env) {
  const dev = readDevState();
  return {
    temporalAddress: env.TEMPORAL_ADDRESS ?? dev?.temporalAddress ?? 'localhost:7233',
    namespace: env.TEMPORAL_NAMESPACE ?? dev?.namespace ?? 'default',
    apiKeyTemporal: env.TEMPORAL_API_KEY,
    taskQueue: env.SLUICE_TASK_QUEUE ?? dev?.taskQueue ?? TASK_QUEUE,
    resultsDir: env.SLUICE_RESULTS_DIR ?? dev?.resultsDir ?? join('.data', 'results'),
    platformUrl: env.SLUICE_PLATFORM_URL ?? dev?.platformUrl,
    queueUrl: env.SLUICE_QUEUE_URL ?? (dev ? `${dev.platformUrl}/v2` : undefined),
    graphqlUrl: env.SLUICE_GRAPHQL_URL ?? (dev ? `${dev.platformUrl}/graphql` : undefined),
    apiKey: env.SLUICE_API_KEY ?? dev?.apiKey,
  };
}

/** A connected {@link JobClient} for the CLI. */
export async function connectCli(): Promise<{ sluice: JobClient; graphql?: GraphqlClient; close(): Promise<void>; settings: ReturnType<typeof cliSettings> }> {
  const settings = cliSettings();
  const connection = await Connection.connect({
    address: settings.temporalAddress,
    connectTimeout: 5000,
    ...(settings.apiKeyTemporal ? { apiKey: settings.apiKeyTemporal, tls: true } : {}),
  }).catch((err: Error) => {
    throw new Error(`cannot reach Temporal at ${settings.temporalAddress} (${err.message}); is \`sluice dev\` running, or TEMPORAL_ADDRESS set?`);
  });
  const client = new Client({ connection, namespace: settings.namespace });
  const queue = settings.queueUrl && settings.apiKey ? new QueueClient({ baseUrl: settings.queueUrl, apiKey: settings.apiKey, retry: { maxAttempts: 2 } }) : undefined;
  const graphql = settings.graphqlUrl && settings.apiKey ? new GraphqlClient({ url: settings.graphqlUrl, apiKey: settings.apiKey, retry: { maxAttempts: 2 } }) : undefined;
  return {
    settings,
    ...(graphql ? { graphql } : {}),
    sluice: new JobClient({ client, taskQueue: settings.taskQueue, resultsDir: settings.resultsDir, ...(queue ? { queue } : {}) }),
    close: async () => {
      await queue?.close();
      await graphql?.close();
      await connection.close();
    },
  };
}
