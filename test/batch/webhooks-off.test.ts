/**
 * Webhooks as an accelerator, not a dependency, on the real stack: the daemon's public URL is a
 * gate that drops every webhook (a daemon behind NAT), then lets them through again. Job workflows
 * and a batch complete exactly once while it is shut, and the daemon says so (`/readyz`, the
 * metric, the batch's status); with webhooks back its state returns to webhooks. A batch through
 * the platform's delayed answers completes exactly once too.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { orchestratorStack } from '../helpers/orchestrator';
import { listenLocal } from '../helpers/listen';
import { eventually } from '../helpers/platform';
import { batchStack, inputFile, mixedEndpoint, platformJobs, resultsOf, type Stack } from './helpers';

/** A public URL in front of the daemon that drops every webhook while shut. */
async function webhookGate() {
  const gate = { open: false, target: '' };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    if (!gate.open || !gate.target) {
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      request(`${gate.target}${req.url ?? '/'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: Buffer.concat(chunks),
      })
        .then(async (r) => {
          res.writeHead(r.statusCode, { 'content-type': 'application/json' });
          res.end(await r.body.text());
        })
        .catch(() => req.socket.destroy());
    });
  });
  return Object.assign(gate, await listenLocal(server));
}

const readyz = async (s: Stack) =>
  (await (await request(`${s.daemon.url}/readyz`)).body.json()) as { webhooks: { completion: string } };
const gauge = async (s: Stack) =>
  /^sluice_webhooks_healthy (\d)/m.exec(await (await request(`${s.daemon.url}/metrics`)).body.text())?.[1];

/** `n` inputs of a short sleep, as a batch file. */
const sleeps = (n: number, ms: number) => inputFile(Array.from({ length: n }, (_, i) => ({ kind: 'sleep', ms, i })));

describe('webhooks lost entirely (the public URL unreachable)', () => {
  let gate: Awaited<ReturnType<typeof webhookGate>>;
  const ctx = batchStack({
    daemon: async () => {
      gate = await webhookGate();
      return { SLUICE_PUBLIC_URL: gate.url };
    },
  });

  it('job workflows complete by polling, and the daemon says webhooks are off', async () => {
    gate.target = ctx.s.daemon.url;
    expect((await readyz(ctx.s)).webhooks.completion).toBe('webhooks');
    const ids = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        ctx.s.sluice.start({ endpointId: ctx.s.platform.examples.sleep!.id, input: { ms: 200, i } }),
      ),
    );
    for (const id of ids) expect((await ctx.s.sluice.result(id)).status).toBe('COMPLETED');
    await eventually(async () => expect((await readyz(ctx.s)).webhooks.completion).toBe('polling'));
    expect(await gauge(ctx.s)).toBe('0');
    // Waits are polled steadily now: a job is not left for its fallback poll.
    const id = await ctx.s.sluice.start({ endpointId: ctx.s.platform.examples.sleep!.id, input: { ms: 100 } });
    expect((await ctx.s.sluice.result(id)).status).toBe('COMPLETED');
  });

  it('a batch completes exactly once, its status saying its jobs are polled', async () => {
    const ep = mixedEndpoint(ctx.s, 'no-webhooks', 4);
    const { file, dir } = sleeps(150, 100);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({ endpointId: ep, source: file, outDir, options: { concurrency: 8 } });
    await eventually(async () => expect((await ctx.batch.state(id)).waiting).toContain('no-webhooks'), 60_000);
    const summary = await ctx.batch.result(id);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: 150 });
    resultsOf(
      outDir,
      Array.from({ length: 150 }, (_, i) => i),
    );
    expect(platformJobs(ctx.s, ep)).toHaveLength(150);
  });

  it('webhooks back: the daemon returns to webhooks, and a batch completes exactly once', async () => {
    gate.open = true;
    const ep = mixedEndpoint(ctx.s, 'webhooks-back', 4);
    const { file, dir } = sleeps(60, 50);
    const outDir = join(dir, 'out');
    const id = await ctx.batch.start({ endpointId: ep, source: file, outDir, options: { concurrency: 8 } });
    const summary = await ctx.batch.result(id);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: 60 });
    resultsOf(
      outDir,
      Array.from({ length: 60 }, (_, i) => i),
    );
    expect(platformJobs(ctx.s, ep)).toHaveLength(60);
    await eventually(async () => expect((await readyz(ctx.s)).webhooks.completion).toBe('webhooks'));
    expect(await gauge(ctx.s)).toBe('1');
  });
});

describe('slow answers (4 % of calls 1 to 4 s late)', () => {
  it('a batch completes exactly once', async () => {
    const s = await orchestratorStack({ platform: { faults: { seed: 7, delay: 0.04, delayMs: [1000, 4000] } } });
    try {
      const batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir, resultsUrl: s.resultsUrl });
      const ep = mixedEndpoint(s, 'slow-answers', 4);
      const { file, dir } = inputFile(Array.from({ length: 120 }, (_, i) => ({ kind: 'echo', i })));
      const outDir = join(dir, 'out');
      const id = await batch.start({ endpointId: ep, source: file, outDir, options: { concurrency: 16 } });
      const summary = await batch.result(id);
      expect(summary.counts.byStatus).toEqual({ COMPLETED: 120 });
      const results = resultsOf(
        outDir,
        Array.from({ length: 120 }, (_, i) => i),
      );
      expect(results.get(7)!.output).toEqual({ kind: 'echo', i: 7 });
      expect(platformJobs(s, ep)).toHaveLength(120);
    } finally {
      await s.dispose();
    }
  });
});
