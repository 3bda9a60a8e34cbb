/**
 * The batch webhook inbox in the results store, on a local directory and on S3 (MinIO): records
 * received by any daemon are taken by exactly one finished step (its positions kept with its
 * result), a retried step reads again what it read, bursts are grouped into few writes, and a waiting step wakes on its daemon's records.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreInbox } from '../../results/batch/store-inbox';
import { type ObjectStore } from '../../results/store/object-store';
import { openResultsStore } from '../../results/store/open';
import { type JobRecord } from '../../contracts';
import { batchKeys } from '../../contracts/names';
import { startS3Server, type S3Server } from '../helpers/s3';

const rec = (id: string, retries = 0): JobRecord => ({ id, status: 'COMPLETED', retries, output: { id } }) as JobRecord;
const ids = (rs: JobRecord[]): string[] => rs.map((r) => `${r.id}#${r.retries ?? 0}`).sort();

describe.each(['local directory', 'S3 (MinIO)'])('store inbox on %s', (kind) => {
  let dir = '';
  let s3: S3Server | undefined;
  const stores: ObjectStore[] = [];
  const open = (name: string): ObjectStore => {
    const s =
      kind === 'S3 (MinIO)' ? openResultsStore(s3!.url(name), { env: s3!.env }) : openResultsStore(join(dir, name));
    stores.push(s);
    return s;
  };
  beforeAll(async () => {
    if (kind === 'S3 (MinIO)') s3 = await startS3Server();
    else dir = mkdtempSync(join(tmpdir(), 'sluice-inbox-'));
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await s3?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('gives each record to one finished step, whichever daemon received it; a retried step reads again', async () => {
    const run = { workflowId: 'batch/a', runId: 'r1' };
    const store = open('one');
    /** What a batch step keeps at its end: its result, with how far it read. */
    const finish = (seq: number, position: Record<string, number>) =>
      store.create(batchKeys.stepResult(run, seq), { inboxAt: position });
    const a = new StoreInbox({ store, daemonId: 'a', pollMs: 50 });
    const b = new StoreInbox({ store: open('one'), daemonId: 'b', pollMs: 50 });
    await a.put(run, rec('j1'));
    await b.put(run, rec('j2'));
    await a.put(run, rec('j3'));
    await a.put({ workflowId: 'batch/other', runId: 'r1' }, rec('x'));

    const step0 = await b.open(run, 0);
    expect(ids(await step0.take())).toEqual(['j1#0', 'j2#0', 'j3#0']);
    expect(await step0.take()).toEqual([]);
    await finish(0, step0.position());

    await b.put(run, rec('j4'));
    await a.put(run, rec('j1', 1));
    const step1 = await a.open(run, 1);
    expect(ids(await step1.take())).toEqual(['j1#1', 'j4#0']);
    // Step 1 dies before committing: step 1 retried (on the other daemon) takes the same records.
    const step1again = await b.open(run, 1);
    expect(ids(await step1again.take())).toEqual(['j1#1', 'j4#0']);
    await finish(1, step1again.position());
    // Another activity (the batch's finish) took number 2: step 3 starts after step 1.
    await b.put(run, rec('j5'));
    expect(ids(await (await a.open(run, 3)).take())).toEqual(['j5#0']);
  });

  it("gives a step its own daemon's records from memory (no read of the log), at the positions another daemon reads the log from", async () => {
    const run = { workflowId: 'batch/memory', runId: 'r1' };
    const store = open('memory');
    const a = new StoreInbox({ store, daemonId: 'a', pollMs: 600_000, lingerMs: 0 });
    const b = new StoreInbox({ store: open('memory'), daemonId: 'b', pollMs: 600_000, lingerMs: 0 });
    const reads = (): number =>
      ['open', 'read', 'stat', 'GetObject', 'HeadObject'].reduce((n, k) => n + (store.stats.requests[k] ?? 0), 0);
    await a.put(run, rec('m1'));
    const step0 = await a.open(run, 0);
    await step0.take(); // its first look lists the logs
    await Promise.all([a.put(run, rec('m2')), a.put(run, rec('m3'))]);
    await a.put(run, rec('m4'));
    const before = reads();
    await step0.wait(3, 20_000);
    expect(ids(await step0.take())).toEqual(['m2#0', 'm3#0', 'm4#0']);
    expect(reads()).toBe(before);
    await store.create(batchKeys.stepResult(run, 0), { inboxAt: step0.position() });
    // Another daemon's next step starts from the position taken from memory: just what came after.
    await a.put(run, rec('m5'));
    expect(ids(await (await b.open(run, 1)).take())).toEqual(['m5#0']);
    // And a step of a daemon started afresh reads the whole log from the store: every record, once.
    const fresh = new StoreInbox({ store: open('memory'), daemonId: 'c' });
    expect(ids(await (await fresh.open(run, 0)).take())).toEqual(['m1#0', 'm2#0', 'm3#0', 'm4#0', 'm5#0']);
  });

  it('groups a burst of webhooks into few appends and loses none', async () => {
    const run = { workflowId: 'batch/burst', runId: 'r1' };
    const store = open('burst');
    const a = new StoreInbox({ store, daemonId: 'a' });
    const b = new StoreInbox({ store: open('burst'), daemonId: 'b' });
    const before = Object.values(store.stats.requests).reduce((x, y) => x + y, 0);
    await Promise.all(Array.from({ length: 300 }, (_, n) => (n % 2 ? a : b).put(run, rec(`j${n}`))));
    const writes = Object.values(store.stats.requests).reduce((x, y) => x + y, 0) - before;
    expect(writes).toBeLessThan(20); // one append per record would be 150 writes or more
    const step = await a.open(run, 0);
    expect((await step.take()).length).toBe(300);
  });

  it.skipIf(kind !== 'local directory')(
    'webhooks a few ms apart share fsyncs (group commit), each answered once an fsync after its write is done',
    async () => {
      const run = { workflowId: 'batch/spread', runId: 'r1' };
      const store = open('spread');
      const a = new StoreInbox({ store, daemonId: 'a', syncWithinMs: 40 });
      const fsyncs = () => store.stats.requests.fsync ?? 0;
      const before = fsyncs();
      const syncsAtAnswer: number[] = [];
      const puts: Promise<void>[] = [];
      for (let n = 0; n < 10; n++) {
        puts.push(a.put(run, rec(`s${n}`)).then(() => void syncsAtAnswer.push(fsyncs() - before)));
        await new Promise((r) => setTimeout(r, 5));
      }
      await Promise.all(puts);
      // One fsync per record (and one for the new file's folder) before; a few now.
      expect(fsyncs() - before).toBeLessThanOrEqual(5);
      // None answered before an fsync (the file's own, after the folder's) had run.
      expect(Math.min(...syncsAtAnswer)).toBeGreaterThanOrEqual(2);
      const fresh = new StoreInbox({ store: open('spread'), daemonId: 'b' });
      expect((await (await fresh.open(run, 0)).take()).length).toBe(10);
    },
  );

  it("wakes a waiting step on its own daemon's record, and finds another daemon's by polling", async () => {
    const run = { workflowId: 'batch/wait', runId: 'r1' };
    const a = new StoreInbox({ store: open('wait'), daemonId: 'a', pollMs: 600_000, lingerMs: 0 });
    const b = new StoreInbox({ store: open('wait'), daemonId: 'b', pollMs: 100, lingerMs: 0 });
    const step = await a.open(run, 0);
    const marker = new Promise((r) => setTimeout(() => r('timed out'), 20_000));
    const waited = step.wait(1, 60_000).then(() => 'woke');
    setTimeout(() => void a.put(run, rec('mine')), 100);
    expect(await Promise.race([waited, marker])).toBe('woke');
    expect(ids(await step.take())).toEqual(['mine#0']);

    const other = await b.open(run, 0);
    await other.take();
    const polled = other.wait(1, 60_000).then(() => 'woke');
    setTimeout(() => void a.put(run, rec('theirs')), 100);
    expect(await Promise.race([polled, marker])).toBe('woke');
    expect(ids(await other.take())).toEqual(['theirs#0']);
  });

  it('lingers for the rest of `min` after the first record as long as the wait asks (the inbox default otherwise)', async () => {
    const a = new StoreInbox({ store: open('linger'), daemonId: 'a', pollMs: 600_000, lingerMs: 0 });
    const twoApart = async (workflowId: string, lingerMs?: number): Promise<string[]> => {
      const run = { workflowId, runId: 'r1' };
      const step = await a.open(run, 0);
      setTimeout(() => void a.put(run, rec('one')), 50);
      setTimeout(() => void a.put(run, rec('two')), 400);
      await step.wait(2, 60_000, undefined, lingerMs);
      return ids(await step.take());
    };
    expect(await twoApart('batch/linger-default')).toEqual(['one#0']);
    expect(await twoApart('batch/linger-long', 30_000)).toEqual(['one#0', 'two#0']);
  });

  it.skipIf(kind !== 'local directory')(
    'wakes a waiting step once its record is written, before the append is durable (the fsync still to come)',
    async () => {
      const run = { workflowId: 'batch/written', runId: 'r1' };
      const inner = open('written');
      // A store whose appends stay unresolved (not durable yet) until `durable` is called.
      let durable!: () => void;
      const held = new Promise<void>((r) => (durable = r));
      const store = new Proxy(inner, {
        get: (t, p) =>
          p === 'append'
            ? async (key: string, values: unknown[], written?: () => void) => {
                await t.append(key, values, written);
                await held;
              }
            : (Reflect.get(t, p) as unknown),
      });
      const a = new StoreInbox({ store, daemonId: 'a', pollMs: 600_000, lingerMs: 0 });
      const step = await a.open(run, 0);
      let answered = false;
      const put = a.put(run, rec('early')).then(() => (answered = true));
      await step.wait(1, 20_000);
      expect(ids(await step.take())).toEqual(['early#0']);
      expect(answered).toBe(false); // the webhook is answered only once its record is durable
      durable();
      await put;
      expect(answered).toBe(true);
    },
  );

  it('returns at once when nothing is asked to wait for, and on abort', async () => {
    const run = { workflowId: 'batch/abort', runId: 'r1' };
    const a = new StoreInbox({ store: open('abort'), daemonId: 'a', pollMs: 600_000 });
    const step = await a.open(run, 0);
    await step.wait(1, 0);
    const ac = new AbortController();
    const waited = step.wait(1, 600_000, ac.signal);
    ac.abort();
    await waited;
    expect(await step.take()).toEqual([]);
  });
});
