/**
 * What the console reads and acts through: the library's clients (the same calls and updates the
 * CLI sends) and, when the service is configured, its endpoints and their health. Injected by the
 * command that serves the console; the console never opens a connection of its own.
 */
import { type Health } from '../contracts';
import { type BatchClient } from '../client/batch';
import { type JobClient } from '../client/job';
import { type PipelineClient } from '../client/pipeline';
import { type ScalerClient } from '../client/scaler';
import { type GraphqlClient } from '../platform-api';

/** The console's dependencies. */
export interface ConsoleSources {
  batch: BatchClient;
  pipeline: PipelineClient;
  scaler: ScalerClient;
  job: JobClient;
  /** The service's endpoints (GraphQL `myself { endpoints }`); absent without the service's URL and key. */
  graphql?: Pick<GraphqlClient, 'listEndpoints'>;
  /** The service's `/health` of an endpoint; absent without the service's URL and key. */
  queue?: { health(endpointId: string): Promise<Health> };
  /** The Temporal Web UI, for links to workflows. */
  temporalUiUrl?: string;
  /** The Temporal namespace (for those links). @default 'default' */
  namespace?: string;
}

/** A workflow's page in the Temporal Web UI, when one is known. */
export function temporalLink(
  s: Pick<ConsoleSources, 'temporalUiUrl' | 'namespace'>,
  workflowId: string,
): string | undefined {
  if (!s.temporalUiUrl) return undefined;
  const base = s.temporalUiUrl.replace(/\/+$/, '');
  return `${base}/namespaces/${encodeURIComponent(s.namespace ?? 'default')}/workflows/${encodeURIComponent(workflowId)}`;
}
