/**
 * A conditional PUT whose answer is lost (connection reset after the server stored it) is retried
 * by the SDK and then answered 412: the store must know that write as its own, so an append is not
 * written twice and a create reports that it won.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3ClientFromEnv } from '../../results/store/s3-client';
import { S3ObjectStore } from '../../results/store/s3-object-store';
import { startS3Server, type S3Server } from '../helpers/s3';

/** A store whose client loses the answer of the next `lose.count` PutObject requests (after S3 stored them). */
function lossyStore(s3: S3Server, prefix: string): { store: S3ObjectStore; lose: { count: number; lost: number } } {
  const lose = { count: 0, lost: 0 };
  const client = s3ClientFromEnv({ env: s3.env });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const out = await next(args);
      if (context.commandName === 'PutObjectCommand' && lose.count > 0) {
        lose.count--;
        lose.lost++;
        throw Object.assign(new Error('socket hang up (answer lost by the test)'), { code: 'ECONNRESET' });
      }
      return out;
    },
    { step: 'deserialize', name: 'loseAnswer' },
  );
  return { store: new S3ObjectStore({ bucket: s3.bucket, prefix, client }), lose };
}

describe('S3 store when an answer is lost', () => {
  let s3: S3Server;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3?.stop());

  it('appends each group once although the stored write is retried', async () => {
    const { store, lose } = lossyStore(s3, 'append');
    for (let g = 0; g < 3; g++) {
      lose.count = 1;
      await store.append('journal.jsonl', [{ g }]);
    }
    expect(lose.lost).toBe(3);
    expect(await store.lines('journal.jsonl')).toEqual([{ g: 0 }, { g: 1 }, { g: 2 }]);
    await store.close();
  });

  it('reports a create as won when its own retried write is the one that exists', async () => {
    const { store, lose } = lossyStore(s3, 'create');
    lose.count = 1;
    expect(await store.create('steps/result-1.json', { mine: true })).toBe(true);
    expect(lose.lost).toBe(1);
    expect(await store.create('steps/result-1.json', { mine: false })).toBe(false);
    expect(await store.get('steps/result-1.json')).toEqual({ mine: true });
    await store.close();
  });
});
