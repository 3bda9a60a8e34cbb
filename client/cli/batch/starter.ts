/** What `sluice batch start` starts and watches its batch with: the light Temporal client when it can (issue 23), else the full one. */
import { batchWorkflowId } from '../../../contracts/names/batch';
import { tracesUrl, otlpEndpoints } from '../../../common/traces-url';
import { type BatchStart } from '../../batch-start';
import { type BatchViews } from '../../batch-status';
import { GRPC_CODES, GrpcError, liteTemporal } from '../../temporal-lite';
import { connectForEndpoint, endpointArg } from '../endpoint-arg';
import { lookupClient } from '../service-clients';
import { UsageError } from '../errors';
import { describeSource, type CliSettings } from '../settings';

/** What starts and watches the batch; a taken batch id is a usage error. */
export interface BatchStarter {
  batch: BatchViews & { start(init: BatchStart): Promise<string> };
  endpointId: string;
  close(): Promise<void>;
}

/**
 * The light client (temporal-lite.ts: Node's http2, no gRPC client or protobufs loaded; issue 23: a
 * small batch's fixed cost) when nothing needs the full one (a payload codec, TLS, an API key, gRPC
 * metadata, tracing); else the full client, connecting while the endpoint is looked up.
 * `meanwhile` (the command's own checks) runs while the lookup's round trip and the connect are
 * under way with the light client, before any connect with the full one; if it throws, nothing
 * starts and its error is the command's.
 */
export async function batchStarter(
  settings: CliSettings,
  dataDir: string,
  endpoint: string,
  meanwhile: () => Promise<void> = async () => undefined,
): Promise<BatchStarter> {
  const c = settings.config;
  const address = tracesUrl(otlpEndpoints(process.env)) ? undefined : liteTemporal(c);
  if (!address) {
    await meanwhile();
    return fullStarter(settings, dataDir, endpoint);
  }
  const graphql = await lookupClient(c);
  const looking = endpointArg({ settings, ...(graphql ? { graphql } : {}) }, endpoint);
  looking.catch(() => undefined); // awaited below, after the checks
  const { BatchLiteClient } = await import('../../batch-lite');
  const lite = new BatchLiteClient({ address, namespace: c.temporal.namespace, taskQueue: c.SLUICE_TASK_QUEUE });
  lite.connect();
  const close = async () => {
    lite.close();
    await graphql?.close();
  };
  const start = (init: BatchStart) =>
    lite.start(init).catch((err: unknown) => {
      if (err instanceof GrpcError && err.code === GRPC_CODES.alreadyExists) throw taken(init);
      if (err instanceof GrpcError && err.code === GRPC_CODES.unavailable)
        throw new Error(
          `cannot reach Temporal at ${address} (${err.message}); ${describeSource(settings)}. Is \`sluice dev\` running (with this --data-dir), or TEMPORAL_ADDRESS set?`,
        );
      throw err;
    });
  try {
    await meanwhile();
    const endpointId = await looking;
    return { batch: { start, view: (id) => lite.view(id), result: (id) => lite.result(id) }, endpointId, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** The full Temporal client, connecting while the endpoint is looked up. */
async function fullStarter(settings: CliSettings, dataDir: string, endpoint: string): Promise<BatchStarter> {
  const { cli, endpointId } = await connectForEndpoint(dataDir, ['batch'], settings, endpoint);
  const { WorkflowExecutionAlreadyStartedError } = await import('@temporalio/client');
  const start = (init: BatchStart) =>
    cli.batch.start(init).catch((err: unknown) => {
      throw err instanceof WorkflowExecutionAlreadyStartedError ? taken(init) : err;
    });
  const batch = { start, view: (id: string) => cli.batch.view(id), result: (id: string) => cli.batch.result(id) };
  return { batch, endpointId, close: () => cli.close() };
}

const taken = (init: BatchStart) =>
  new UsageError(`batch ${batchWorkflowId(init.id ?? '')} already exists; choose another --id`);
