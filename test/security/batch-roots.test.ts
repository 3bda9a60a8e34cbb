/**
 * SLUICE_BATCH_ROOTS on the real stack: the daemon's activities refuse a batch whose input or output
 * lies outside the roots (whoever starts the workflow, the CLI bypassed), naming the setting; a
 * batch inside runs.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { failureMessage, failureType } from '../../client';
import { batchStack, inputFile, readJsonl } from '../batch/helpers';

const allowed = mkdtempSync(join(tmpdir(), 'sluice-batch-roots-'));

describe('where a batch may read and write (SLUICE_BATCH_ROOTS)', () => {
  const ctx = batchStack({ daemon: { SLUICE_BATCH_ROOTS: allowed } });
  afterAll(() => rmSync(allowed, { recursive: true, force: true }));
  const lines = [{ input: { n: 1 } }, { input: { n: 2 } }];

  it('runs a batch whose input and output lie under a root', async () => {
    const source = join(allowed, 'in.jsonl');
    writeFileSync(source, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const outDir = join(allowed, 'out', 'inside');
    const id = await ctx.batch.start({ endpointId: ctx.s.platform.examples.echo!.id, source, outDir });
    const summary = await ctx.batch.result(id);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: 2 });
    expect(readJsonl(join(outDir, 'results.jsonl'))).toHaveLength(2);
  });

  it('refuses an input outside the roots, or reached through a symlink, naming the setting', async () => {
    const { file, dir } = inputFile(lines);
    mkdirSync(join(allowed, 'links'), { recursive: true });
    symlinkSync(dir, join(allowed, 'links', 'elsewhere'));
    for (const source of [file, join(allowed, 'links', 'elsewhere', 'in.jsonl')]) {
      const id = await ctx.batch.start({
        endpointId: ctx.s.platform.examples.echo!.id,
        source,
        outDir: join(allowed, 'out', 'refused'),
      });
      const err = await ctx.batch.result(id).catch((e: unknown) => e);
      expect(failureType(err)).toBe('BAD_REQUEST');
      expect(failureMessage(err)).toMatch(
        /input .* is outside the places batches may read and write \(SLUICE_BATCH_ROOTS: /,
      );
    }
    expect(ctx.s.platform.engine.jobs.ofEndpoint(ctx.s.platform.examples.echo!.id).length).toBe(2);
  });

  it('refuses an output directory outside the roots', async () => {
    const source = join(allowed, 'in.jsonl');
    const outside = mkdtempSync(join(tmpdir(), 'sluice-batch-out-'));
    const id = await ctx.batch.start({
      endpointId: ctx.s.platform.examples.echo!.id,
      source,
      outDir: join(outside, 'out'),
    });
    const err = await ctx.batch.result(id).catch((e: unknown) => e);
    expect(failureMessage(err)).toMatch(/output directory .* is outside .*SLUICE_BATCH_ROOTS/);
    rmSync(outside, { recursive: true, force: true });
  });
});
