/** Signed webhook URLs: what they bind (run, endpoint, attempt or submission), their expiry, and the refusals. */
import { describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts';
import { CLOCK_SKEW_MS, WebhookUrls, webhookLifetimeMs } from '../../worker/webhook-url';

const urls = new WebhookUrls('a-secret-of-at-least-16', 'http://daemon.example:8288');
const run = { workflowId: 'job/abc', runId: 'run-1' };
const segments = (url: string): string[] => new URL(url).pathname.split('/').filter(Boolean).slice(1);
const now = Date.UTC(2026, 10, 25, 12);

describe('webhook URLs', () => {
  it("a job's URL speaks for its run, endpoint, attempt and inline limit, until its ttl plus the retention", () => {
    const url = urls.job(run, 'ep1', 3, 1000, 60_000, now);
    expect(url).toMatch(/^http:\/\/daemon\.example:8288\/hooks\/v2\/[\w-]+\/[\w-]+$/);
    const v = urls.verify(segments(url), now);
    expect(v).toEqual({
      target: {
        kind: 'job',
        run,
        endpointId: 'ep1',
        attempt: 3,
        inlineLimit: 1000,
        expiresAt: now + webhookLifetimeMs(60_000),
      },
    });
    // The numbers: ttl + 30 min retention + 2 webhook retries 10 s apart + 5 min of clock skew.
    expect(webhookLifetimeMs(60_000)).toBe(60_000 + 30 * 60_000 + 20_000 + CLOCK_SKEW_MS);
    expect(webhookLifetimeMs()).toBe(LIMITS.ttlDefaultMs + webhookLifetimeMs(0));
    expect(urls.verify(segments(url), now + webhookLifetimeMs(60_000))).toHaveProperty('target');
    expect(urls.verify(segments(url), now + webhookLifetimeMs(60_000) + 1)).toEqual({
      refused: expect.objectContaining({ status: 410, code: 'WEBHOOK_EXPIRED' }),
    });
  });

  it("a batch submission's URL speaks for the batch run, the input's index and the attempt", () => {
    const v = urls.verify(segments(urls.batch(run, 'ep1', 41, 2, undefined, now)), now);
    expect(v).toEqual({
      target: {
        kind: 'batch',
        run,
        endpointId: 'ep1',
        index: 41,
        attempt: 2,
        inlineLimit: 0,
        expiresAt: now + webhookLifetimeMs(LIMITS.ttlDefaultMs),
      },
    });
  });

  it('an altered claim, another secret or an unsigned path is refused as forged', () => {
    const [v, claims, sig] = segments(urls.job(run, 'ep1', 1, 1000, undefined, now)) as [string, string, string];
    const decoded = JSON.parse(Buffer.from(claims, 'base64url').toString()) as unknown[];
    // Another attempt, another workflow, a later expiry: each changes the claims, not the signature.
    for (const [n, value] of [
      [4, 2],
      [1, 'job/other'],
      [7, now + 365 * 86_400_000],
    ] as const) {
      const changed = [...decoded];
      changed[n] = value;
      const forged = [v, Buffer.from(JSON.stringify(changed)).toString('base64url'), sig];
      expect(urls.verify(forged, now)).toEqual({
        refused: expect.objectContaining({ status: 403, code: 'WEBHOOK_FORGED' }),
      });
    }
    const other = new WebhookUrls('another-secret-16-chars', 'http://daemon.example:8288');
    expect(other.verify([v, claims, sig], now)).toEqual({ refused: expect.objectContaining({ status: 403 }) });
    expect(urls.verify([v, claims, 'x'.repeat(sig.length)], now)).toEqual({
      refused: expect.objectContaining({ status: 403 }),
    });
  });

  it('a URL of the earlier form (no expiry, not bound to its job) is refused with its reason', () => {
    const legacy = [Buffer.from('job/abc\nrun-1').toString('base64url'), '1000', 'sig'];
    expect(urls.verify(legacy, now)).toEqual({
      refused: {
        status: 410,
        code: 'WEBHOOK_LEGACY',
        message: expect.stringMatching(/earlier sluice .* found by its \/status poll/),
      },
    });
    expect(urls.verify(['v3', 'x', 'y'], now)).toEqual({ refused: expect.objectContaining({ status: 404 }) });
  });
});
