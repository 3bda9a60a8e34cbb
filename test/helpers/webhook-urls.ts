/** The webhook URLs a test daemon hands out, captured as its hub builds them (the service's view of them). */
import { type Client } from '@temporalio/client';
import { type JobWorkflowState } from '../../contracts';
import { JOB_QUERIES } from '../../contracts/names';
import { type WebhookHub } from '../../worker/webhook-hub';
import { eventually } from './platform';

/**
 * Wraps `hub`'s URL builders: every job webhook URL is kept by workflow id, every batch
 * submission's by `<workflow id>#<index>`.
 */
export function captureWebhookUrls(hub: WebhookHub): Map<string, string> {
  const urls = new Map<string, string>();
  const build = hub.webhookUrl.bind(hub);
  hub.webhookUrl = (run, ...rest) => {
    const url = build(run, ...rest);
    urls.set(run.workflowId, url);
    return url;
  };
  const buildBatch = hub.batchWebhookUrl.bind(hub);
  hub.batchWebhookUrl = (run, endpointId, index, ...rest) => {
    const url = buildBatch(run, endpointId, index, ...rest);
    urls.set(`${run.workflowId}#${index}`, url);
    return url;
  };
  return urls;
}

/** POSTs `body` as JSON to `url`: the answer's status and JSON body. */
export async function postWebhook(
  url: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Job workflow `id`'s remote job id, once its webhook URL is in `urls` (its wait is held). */
export async function remoteJobOnceHooked(client: Client, urls: Map<string, string>, id: string): Promise<string> {
  const handle = client.workflow.getHandle(id);
  let remote: string | undefined;
  await eventually(async () => {
    remote = (await handle.query<JobWorkflowState>(JOB_QUERIES.state)).remoteJobId;
    return remote !== undefined && urls.has(id);
  });
  return remote!;
}
