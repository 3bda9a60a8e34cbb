/** Pipeline test helpers: a real stack with a pipeline client, result lines checked one per input. */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { PipelineClient } from '../../client/pipeline';
import { BatchClient } from '../../client/batch';
import { type PipelineResultLine } from '../../contracts';
import { orchestratorStack } from '../helpers/orchestrator';
import { readJsonl, type Stack } from '../batch/helpers';

/** A real stack, a pipeline client and a batch client for one test file (stopped in afterAll). */
export function pipelineStack(options?: Parameters<typeof orchestratorStack>[0]): {
  readonly s: Stack;
  readonly pipeline: PipelineClient;
  readonly batch: BatchClient;
} {
  const ctx = {} as { s: Stack; pipeline: PipelineClient; batch: BatchClient };
  beforeAll(async () => {
    ctx.s = await orchestratorStack(options);
    const o = { client: ctx.s.env.client, resultsDir: ctx.s.resultsDir, resultsUrl: ctx.s.resultsUrl };
    ctx.pipeline = new PipelineClient(o);
    ctx.batch = new BatchClient(o);
  });
  afterAll(() => ctx.s?.dispose());
  return ctx;
}

/** The results of a finished pipeline, checked to hold every index exactly once. */
export function pipelineResults(outDir: string, count: number): Map<number, PipelineResultLine> {
  const byIndex = new Map<number, PipelineResultLine>();
  for (const l of readJsonl<PipelineResultLine>(join(outDir, 'results.jsonl'))) {
    if (byIndex.has(l.index)) throw new Error(`index ${l.index} has two result lines`);
    byIndex.set(l.index, l);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) throw new Error(`no result for indices ${missing.slice(0, 10).join(', ')}`);
  if (byIndex.size !== count) throw new Error(`${byIndex.size} result lines for ${count} inputs`);
  return byIndex;
}

/** The keys a pipeline's runs keep in a local results store under `sub` (`context`, `steps`), every run. */
export function pipelineStoreKeys(resultsDir: string, pipelineId: string, sub: string): string[] {
  const root = join(resultsDir, encodeURIComponent(`pipeline/${pipelineId.replace(/^pipeline\//, '')}`));
  if (!existsSync(root)) throw new Error(`no records of pipeline ${pipelineId} in ${resultsDir}`);
  return readdirSync(root).flatMap((run) => {
    const dir = join(root, run, sub);
    return existsSync(dir) ? readdirSync(dir).map((f) => `${run}/${sub}/${f}`) : [];
  });
}
