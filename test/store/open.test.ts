/** Choosing the results store by URL (bad URLs and half-set credentials are clear errors), and the S3 test server's own clean-up. */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isStoreError } from '../../results/errors';
import { checkConditionalWrites, openResultsStore } from '../../results/store/open';
import { parseS3Url } from '../../results/store/s3-url';
import { startS3Server } from '../helpers/s3';
import { liveGroupMembers } from '../helpers/processes';

const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return isStoreError(err) ? err.code : String(err);
  }
};

describe('openResultsStore', () => {
  it('opens a directory (a path or a file:// URL) and creates it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sluice-open-'));
    try {
      const a = openResultsStore(join(dir, 'a'));
      expect(a.kind).toBe('fs');
      expect(existsSync(join(dir, 'a'))).toBe(true);
      const b = openResultsStore(pathToFileURL(join(dir, 'b')).href);
      await b.put('k.json', 1);
      expect(existsSync(join(dir, 'b', 'k.json'))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('parses s3://bucket/prefix URLs and refuses others with INVALID_URL', () => {
    expect(parseS3Url('s3://my-bucket/results/run-1/')).toEqual({ bucket: 'my-bucket', prefix: 'results/run-1' });
    expect(parseS3Url('s3://my-bucket')).toEqual({ bucket: 'my-bucket', prefix: '' });
    const env = { AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' };
    for (const bad of [
      's3://',
      's3:///x',
      's3://Bad_Bucket/x',
      's3://bucket/../x',
      'http://example.com/x',
      'gs://bucket/x',
      '',
    ]) {
      expect(
        codeOf(() => openResultsStore(bad, { env })),
        bad,
      ).toBe('INVALID_URL');
    }
  });

  it('wants both AWS key variables or neither', () => {
    expect(codeOf(() => openResultsStore('s3://bucket/x', { env: { AWS_ACCESS_KEY_ID: 'only-the-id' } }))).toBe(
      'MISSING_CONFIG',
    );
    const store = openResultsStore('s3://bucket/x', { env: {} });
    expect([store.kind, store.url]).toEqual(['s3', 's3://bucket/x/']);
    return store.close();
  });
});

describe('the S3 test server', () => {
  it('runs as its own process group, honours conditional writes, and leaves nothing behind when stopped', async () => {
    const s3 = await startS3Server({ bucket: 'cleanup' });
    expect(liveGroupMembers(s3.pgid).length).toBeGreaterThanOrEqual(2);
    const store = openResultsStore(s3.url('p'), { env: s3.env });
    // MinIO honours If-None-Match: * (twice: the probe key exists the second time).
    await checkConditionalWrites(store);
    await checkConditionalWrites(store);
    expect(await store.get('_sluice/probe.json')).toEqual({ probe: 1 });
    await store.close();
    await s3.stop();
    expect(liveGroupMembers(s3.pgid)).toEqual([]);
    expect(existsSync(s3.dataDir)).toBe(false);
  });
});
