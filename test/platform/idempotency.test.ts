import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdjustableClock } from '../../platform';
import { QueueClient } from '../../platform-api';
import { addEndpoint, call, testPlatform } from '../helpers/platform';

type P = Awaited<ReturnType<typeof testPlatform>>;

describe('Idempotency-Key on /run and /runsync: a repeated key answers the first job', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-idem-'));
  const clock = new AdjustableClock();
  let p: P;
  let parked: string;
  let echo: string;
  let client: QueueClient;

  beforeAll(async () => {
    p = await testPlatform({ dataDir, clock });
    parked = addEndpoint(p, { name: 'parked', command: ['false'], workersMax: 0 }).id;
    echo = p.examples.echo!.id;
    client = new QueueClient({ baseUrl: `${p.url}/v2`, apiKey: 'test-key', rateBudget: false });
  });
  afterAll(async () => {
    await client.close();
    await p.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the same key twice gives the same id and creates one job; different keys create two', async () => {
    const before = p.engine.created(parked);
    const a = await client.run(parked, { input: { n: 1 } }, { idempotencyKey: 'order-1' });
    const again = await client.run(parked, { input: { n: 1 } }, { idempotencyKey: 'order-1' });
    expect(again.id).toBe(a.id);
    expect([a.replayed, again.replayed]).toEqual([false, true]);
    expect(again).toEqual({ id: a.id, status: 'IN_QUEUE' });
    const b = await client.run(parked, { input: { n: 2 } }, { idempotencyKey: 'order-2' });
    expect(b.id).not.toBe(a.id);
    expect(p.engine.created(parked) - before).toBe(2);
    // On the wire: the replay is marked by a header; without a key nothing changes.
    const raw = await call(p.url, 'POST', `/v2/${parked}/run`, {
      body: { input: {} },
      headers: { 'idempotency-key': 'order-1' },
    });
    expect(raw.body).toEqual({ id: a.id, status: 'IN_QUEUE' });
    expect(raw.headers['idempotent-replayed']).toBe('true');
    const plain = await call(p.url, 'POST', `/v2/${parked}/run`, { body: { input: {} } });
    expect(plain.headers['idempotent-replayed']).toBeUndefined();
    // A purged job still answers its key, with its current status.
    await client.purgeQueue(parked);
    expect(await client.run(parked, { input: {} }, { idempotencyKey: 'order-2' })).toEqual({
      id: b.id,
      status: 'CANCELLED',
    });
  });

  it('/runsync with a repeated key waits on the first job and answers its record', async () => {
    const first = await client.runSync(echo, { input: { x: 1 } }, { idempotencyKey: 'sync-1' });
    const second = await client.runSync(echo, { input: { x: 2 } }, { idempotencyKey: 'sync-1' });
    expect(first).toMatchObject({ status: 'COMPLETED', output: { x: 1 } });
    expect(second).toEqual(first);
    expect([first.replayed, second.replayed]).toEqual([false, true]);
    // A key is scoped per endpoint: the same key on another endpoint is another job.
    const elsewhere = await client.run(parked, { input: {} }, { idempotencyKey: 'sync-1' });
    expect(elsewhere.replayed).toBe(false);
  });

  it('a key reused after the first job is gone (its ttl ended) creates a new job', async () => {
    const first = await client.run(parked, { input: {}, policy: { ttl: 10_000 } }, { idempotencyKey: 'short' });
    clock.advance(10_500);
    p.sweep();
    expect((await call(p.url, 'GET', `/v2/${parked}/status/${first.id}`)).status).toBe(404);
    const second = await client.run(parked, { input: {} }, { idempotencyKey: 'short' });
    expect(second.id).not.toBe(first.id);
    expect(second.replayed).toBe(false);
  });

  it('keys over 255 characters (or empty) are a 400 naming the limit', async () => {
    for (const key of ['k'.repeat(256), '']) {
      const r = await call(p.url, 'POST', `/v2/${parked}/run`, {
        body: { input: {} },
        headers: { 'idempotency-key': key },
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatch(/Idempotency-Key must be 1 to 255 characters/);
    }
    expect(
      (
        await call(p.url, 'POST', `/v2/${parked}/run`, {
          body: { input: {} },
          headers: { 'idempotency-key': 'k'.repeat(255) },
        })
      ).status,
    ).toBe(200);
    await expect(client.run(parked, { input: {} }, { idempotencyKey: 'k'.repeat(256) })).rejects.toThrow(
      /1 to 255 characters/,
    );
  });

  it('a restarted platform keeps the keys', async () => {
    const first = await client.run(parked, { input: {} }, { idempotencyKey: 'durable' });
    await client.close();
    await p.close();
    p = await testPlatform({ dataDir, clock });
    client = new QueueClient({ baseUrl: `${p.url}/v2`, apiKey: 'test-key', rateBudget: false });
    const again = await client.run(parked, { input: {} }, { idempotencyKey: 'durable' });
    expect(again.id).toBe(first.id);
    expect(again.replayed).toBe(true);
    expect(p.engine.created(parked)).toBe(0);
  });
});
