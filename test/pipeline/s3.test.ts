/**
 * `sluice pipeline` on S3 (MinIO) as a real process: the inputs and `--out` at s3:// URLs, the
 * results store in the bucket too; watched on a terminal (a bar for the inputs and one per stage);
 * the output files in the bucket, nothing written locally, no input's context left in the store.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { allKeys } from '../../results/store/object-store';
import { openResultsStore } from '../../results/store/open';
import { type PipelineResultLine, type PipelineState } from '../../contracts';
import { mixedEndpoint } from '../batch/helpers';
import { bin } from '../cli/run-sluice';
import { s3CliStack } from '../helpers/s3-cli-stack';

describe('sluice pipeline on S3 (MinIO)', () => {
  const ctx = s3CliStack();
  beforeAll(() => void mixedEndpoint(ctx.s, 's3-pipe', 2));

  it('start s3://inputs --out s3://prefix, watch with a bar per stage, results and stage files in the bucket', async () => {
    const def = join(ctx.cwd, 'two.yaml');
    writeFileSync(
      def,
      [
        'name: two',
        'stages:',
        '  - name: first',
        '    endpoint: s3-pipe',
        '    concurrency: 1',
        `    input: "{ 'kind': 'sleep', 'ms': 300, 'n': $.input.n }"`,
        '  - name: second',
        '    endpoint: s3-pipe',
        `    input: "{ 'kind': 'echo', 'twice': $.input.n * 2 }"`,
        `output: "$.second.output.twice"`,
      ].join('\n'),
    );
    const N = 12;
    await ctx.bucket.putLines(
      'in/pipe.jsonl',
      Array.from({ length: N }, (_, n) => ({ n })),
    );
    const out = ctx.s3.url('out/pipe/');
    const started = await ctx.cli(
      'pipeline',
      'start',
      def,
      ctx.s3.url('in/pipe.jsonl'),
      '--out',
      out,
      '--id',
      's3-pipe',
      '--detach',
    );
    expect(started.code, started.stderr).toBe(0);

    // On a terminal (a pty from `script`): the bars while it runs, then the status; the exit code is the pipeline's.
    const tty = await new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        'script',
        ['-qec', `${process.execPath} ${bin} pipeline watch s3-pipe`, '/dev/null'],
        { env: ctx.env, cwd: ctx.cwd, timeout: 120_000 },
        (err, stdout) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout }),
      );
    });
    expect(tty.code, tty.out).toBe(0);
    expect(tty.out).toMatch(/inputs +[\u2588\u2591]{30} \d+\/12 inputs done/);
    expect(tty.out).toMatch(
      /first +[\u2588\u2591]{30} \d+\/\d+ jobs, \d+ in flight, 0 not completed, [\d.]+\/s, ETA \S+, \$[\d.]+/,
    );
    expect(tty.out).toMatch(/second +[\u2588\u2591]{30} \d+\/\d+ jobs/);
    expect(tty.out).toMatch(/pipeline\/s3-pipe: COMPLETED/);

    const results = (await ctx.bucket.lines('out/pipe/results.jsonl')) as PipelineResultLine[];
    expect(results.map((l) => l.index).sort((a, b) => a - b)).toEqual(Array.from({ length: N }, (_, i) => i));
    for (const l of results) expect(l, `input ${l.index}`).toMatchObject({ status: 'COMPLETED', output: 2 * l.index });
    expect(await ctx.bucket.lines('out/pipe/stages/first.jsonl')).toHaveLength(N);
    expect(await ctx.bucket.lines('out/pipe/stages/second.jsonl')).toHaveLength(N);
    expect((await ctx.bucket.get('out/pipe/summary.json')) as PipelineState).toMatchObject({
      phase: 'done',
      counts: { done: N, byStatus: { COMPLETED: N } },
    });
    const listed = await ctx.cli('pipeline', 'results', 's3-pipe');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim().split('\n')).toHaveLength(N);
    // Nothing written locally; the store in the bucket keeps no input's context once it ended.
    expect(await allKeys(openResultsStore(ctx.cwd), '')).toEqual(['two.yaml']);
    const kept = await allKeys(ctx.bucket, `results/${encodeURIComponent('pipeline/s3-pipe')}/`);
    expect(kept.filter((k) => k.includes('/context/') || k.includes('/contexts/') || k.includes('/steps/'))).toEqual(
      [],
    );
  }, 240_000);
});
