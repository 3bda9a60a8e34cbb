/**
 * `SLUICE_WEBHOOK_CONFIRM=status`, through a real daemon, platform and Temporal server: every webhook
 * body only names its job, whose outcome is its `/status` record, even a body naming its URL's own job.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratorStack } from '../helpers/orchestrator';
import { captureWebhookUrls, postWebhook, remoteJobOnceHooked } from '../helpers/webhook-urls';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

describe('webhooks confirmed by /status (SLUICE_WEBHOOK_CONFIRM=status)', () => {
  let s: Stack;
  let urls: Map<string, string>;
  beforeAll(async () => {
    s = await orchestratorStack({ daemon: { SLUICE_WEBHOOK_CONFIRM: 'status' } });
    urls = captureWebhookUrls(s.daemon.hub);
  });
  afterAll(() => s.dispose());

  /** A running job's remote id, once its wait is held. */
  const remoteJobOf = (id: string): Promise<string> => remoteJobOnceHooked(s.env.client, urls, id);

  it('a body disagreeing with /status ends with what /status says', async () => {
    const sleep = s.platform.examples.sleep!.id;
    const options = { retry: { maxAttempts: 1 } };
    const a = await s.sluice.start({ endpointId: sleep, input: { ms: 3000 }, options });
    const b = await s.sluice.start({ endpointId: sleep, input: { ms: 3000 }, options });
    const [ra, rb] = [await remoteJobOf(a), await remoteJobOf(b)];
    // Both still run on the service: one body claims success with another output, the other a failure.
    expect(await postWebhook(urls.get(a)!, { id: ra, status: 'COMPLETED', output: { forged: true } })).toEqual({
      status: 200,
      body: { result: 'not_finished' },
    });
    expect(await postWebhook(urls.get(b)!, { id: rb, status: 'FAILED', error: 'forged failure' })).toEqual({
      status: 200,
      body: { result: 'not_finished' },
    });
    expect(await s.sluice.result(a)).toMatchObject({ status: 'COMPLETED', output: { slept: 3000 } });
    expect(await s.sluice.result(b)).toMatchObject({ status: 'COMPLETED', output: { slept: 3000 } });
  });
});
