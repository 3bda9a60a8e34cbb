/**
 * The results store on S3 (MinIO): a daemon with SLUICE_RESULTS_URL=s3://..., jobs with a streamed
 * and a big output read back by the library and the CLI, a batch with an s3:// input and
 * `--out s3://` through the CLI, and the configuration errors of the store.
 */
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { allKeys } from '../../results/store/object-store';
import { openResultsStore } from '../../results/store/open';
import { type BatchResultLine, type BatchState } from '../../contracts';
import { loadConfig } from '../../worker/config';
import { startDaemon } from '../../worker/daemon';
import { ConfigError } from '../../config/errors';
import { mixedEndpoint } from '../batch/helpers';
import { cleanEnv, sluice as runSluice } from '../cli/run-sluice';
import { daemonEnv } from '../helpers/orchestrator';
import { s3CliStack } from '../helpers/s3-cli-stack';

describe('results store on S3 (MinIO)', () => {
  const ctx = s3CliStack();

  it('a streamed output: each /stream answer appended to the bucket, followed while it runs, read back by the client and `sluice result --chunks`', async () => {
    const id = await ctx.s.sluice.start({
      endpointId: ctx.s.platform.examples.stream!.id,
      input: { chunks: 120, delayMs: 5 },
      options: { stream: true },
    });
    const followed: unknown[] = [];
    for await (const c of ctx.s.sluice.follow(id, 50)) followed.push(c);
    const r = await ctx.s.sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(r.streamChunks).toBe(120);
    expect(r.streamRef).toMatchObject({ store: 's3' });
    const chunks = (await ctx.s.sluice.chunks(r.streamRef)) as { output: { index: number } }[];
    expect(chunks.map((c) => c.output.index)).toEqual(Array.from({ length: 120 }, (_, i) => i));
    expect(followed).toEqual(chunks);
    // In the bucket under the prefix, as a log (numbered objects are the store's, not listed).
    expect(await allKeys(ctx.bucket, 'results/')).toContain(`results/${r.streamRef!.key}`);
    const files = await ctx.s.sluice.streamFiles(id);
    expect(files).toEqual([`${ctx.s3.url('results/')}${r.streamRef!.key}`]);
    const printed = await ctx.cli('result', id, '--chunks');
    expect(printed.code, printed.stderr).toBe(0);
    expect(
      printed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { index: number }).index),
    ).toEqual(Array.from({ length: 120 }, (_, i) => i));
  });

  it('a big output is an object of the bucket, read back by the client and `sluice result --json`', async () => {
    const blob = 'y'.repeat(150_000);
    const id = await ctx.s.sluice.start({ endpointId: ctx.s.platform.examples.echo!.id, input: { blob } });
    const r = await ctx.s.sluice.result(id);
    expect(r.output).toBeUndefined();
    expect(r.outputRef).toMatchObject({ store: 's3' });
    expect(r.outputRef!.bytes).toBeGreaterThan(150_000);
    expect(await ctx.bucket.get(`results/${r.outputRef!.key}`)).toEqual({ blob });
    expect(await ctx.s.sluice.output(r)).toEqual({ blob });
    const printed = await ctx.cli('result', id, '--json');
    expect(printed.code, printed.stderr).toBe(0);
    expect((JSON.parse(printed.stdout.trim()) as { output: unknown }).output).toEqual({ blob });
  });

  it('`sluice batch start s3://bucket/in.jsonl --out s3://bucket/out/`: one outcome per input in the bucket, dead letters, summary, `batch results`', async () => {
    mixedEndpoint(ctx.s, 's3-batch', 3);
    const lines = Array.from({ length: 40 }, (_, i) =>
      i === 7 ? { kind: 'fail', message: 'no good 7' } : { kind: 'echo', i },
    );
    await ctx.bucket.putLines('in/batch.jsonl', lines);
    const r = await ctx.cli(
      'batch',
      'start',
      ctx.s3.url('in/batch.jsonl'),
      '--endpoint',
      's3-batch',
      '--id',
      's3-40',
      '--out',
      ctx.s3.url('out/s3-40/'),
      '--max-attempts',
      '1',
      '--interval',
      '0.5',
    );
    expect(r.code, r.stderr + r.stdout).toBe(1); // one input failed
    expect(r.stdout).toContain(`results in ${ctx.s3.url('out/s3-40/')}`);
    const results = (await ctx.bucket.lines('out/s3-40/results.jsonl')) as BatchResultLine[];
    expect(results.map((l) => l.index).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    expect(results.filter((l) => l.status === 'COMPLETED')).toHaveLength(39);
    expect(results.find((l) => l.index === 3)?.output).toMatchObject({ i: 3 });
    expect(await ctx.bucket.lines('out/s3-40/dead-letter.jsonl')).toEqual([{ kind: 'fail', message: 'no good 7' }]);
    expect((await ctx.bucket.get('out/s3-40/summary.json')) as BatchState).toMatchObject({
      phase: 'done',
      counts: { done: 40, byStatus: { COMPLETED: 39, FAILED: 1 } },
    });
    const listed = await ctx.cli('batch', 'results', 's3-40', '--json');
    expect(listed.code, listed.stderr).toBe(1); // the batch's exit code: one input failed
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as BatchResultLine).index)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 40 }, (_, i) => i));
    // Nothing of the batch was written locally.
    expect(await allKeys(openResultsStore(ctx.cwd), '')).toEqual([]);

    // retry-failed keeps attempt 1's files under attempts/1/ of the prefix and re-runs the failed input only.
    const again = await ctx.cli('batch', 'retry-failed', 's3-40', '--interval', '0.5');
    expect(again.code, again.stderr + again.stdout).toBe(1); // it fails again
    expect(
      ((await ctx.bucket.lines('out/s3-40/attempts/1/results.jsonl')) as BatchResultLine[])
        .map((l) => l.index)
        .sort((a, b) => a - b),
    ).toEqual(results.map((l) => l.index).sort((a, b) => a - b));
    expect(await ctx.bucket.get('out/s3-40/attempts/1/summary.json')).toMatchObject({
      counts: { byStatus: { COMPLETED: 39, FAILED: 1 } },
    });
    const merged = (await ctx.bucket.lines('out/s3-40/results.jsonl')) as BatchResultLine[];
    expect(merged).toHaveLength(40);
    expect(merged.find((l) => l.index === 7)).toMatchObject({ status: 'FAILED', attempts: 1 });
    expect(merged.find((l) => l.index === 3)).toEqual(results.find((l) => l.index === 3));
  });

  it('bad input locations are refused before a batch starts: a missing object, a bad bucket name, another scheme', async () => {
    const missing = await ctx.cli('batch', 'start', ctx.s3.url('in/nope.jsonl'), '--endpoint', 's3-batch');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`cannot read input ${ctx.s3.url('in/nope.jsonl')}: no such object`);
    const badBucket = await ctx.cli('batch', 'start', 's3://Bad_Bucket/in.jsonl', '--endpoint', 's3-batch');
    expect(badBucket.code).toBe(2);
    expect(badBucket.stderr).toContain('not an s3://bucket/prefix URL');
    const badOut = await ctx.cli(
      'batch',
      'start',
      ctx.s3.url('in/batch.jsonl'),
      '--endpoint',
      's3-batch',
      '--out',
      'gs://bucket/out/',
    );
    expect(badOut.code).toBe(2);
    expect(badOut.stderr).toContain('--out: unsupported URL');
  });

  it('a bad SLUICE_RESULTS_URL is named (exit 2); a store the daemon cannot write to stops it from starting', async () => {
    const env = daemonEnv(ctx.s.platform, ctx.s.env.address, join(ctx.cwd, 'results'));
    for (const bad of ['gs://bucket/x', 's3://Bad_Bucket/x', 's3://bucket/../x']) {
      expect(() => loadConfig({ ...env, SLUICE_RESULTS_URL: bad })).toThrow(ConfigError);
      try {
        loadConfig({ ...env, SLUICE_RESULTS_URL: bad });
      } catch (err) {
        expect((err as ConfigError).variable).toBe('SLUICE_RESULTS_URL');
      }
    }
    const worker = await runSluice(['worker'], {
      env: cleanEnv({ ...env, SLUICE_RESULTS_URL: 'gs://bucket/x' }),
      cwd: ctx.cwd,
    });
    expect(worker.code).toBe(2);
    expect(worker.stderr).toMatch(/SLUICE_RESULTS_URL: must be s3:\/\/bucket\/prefix/);
    // A bucket that does not exist: the conditional-write check at start fails, the daemon refuses.
    const config = loadConfig({ ...env, SLUICE_RESULTS_URL: 's3://no-such-bucket/results' });
    const err = await startDaemon({
      config,
      connection: ctx.s.env.nativeConnection,
      client: ctx.s.env.client,
      logger: pino({ level: 'silent' }),
    }).then(
      async (d) => {
        await d.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe('SLUICE_RESULTS_URL');
    expect((err as Error).message).toContain('the results store s3://no-such-bucket/results cannot be used');
  });
});
