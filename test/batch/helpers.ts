/** Batch test helpers: an endpoint of the mixed example handler, input files, reading results. */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { BatchClient } from '../../client/batch';
import { type BatchResultLine } from '../../contracts';
import { orchestratorStack } from '../helpers/orchestrator';
import { addEndpoint, exampleCommand } from '../helpers/platform';

export type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

/** An endpoint running examples/handlers/mixed.ts. */
export function mixedEndpoint(s: Stack, name: string, workersMax = 4): string {
  return addEndpoint(s.platform, { name, command: exampleCommand('mixed'), workersMin: 1, workersMax, idleTimeout: 30 })
    .id;
}

/** Writes JSONL lines (objects are stringified, strings written as they are) to a new temp file. */
export function inputFile(lines: (object | string)[]): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-batch-'));
  const file = join(dir, 'in.jsonl');
  writeFileSync(file, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + '\n');
  return { file, dir };
}

export function readJsonl<T = unknown>(file: string): T[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/** The results of a finished batch, checked to hold every index exactly once. */
export function resultsOf(outDir: string, indices: number[]): Map<number, BatchResultLine> {
  const lines = readJsonl<BatchResultLine>(join(outDir, 'results.jsonl'));
  const byIndex = new Map<number, BatchResultLine>();
  for (const l of lines) {
    if (byIndex.has(l.index)) throw new Error(`index ${l.index} has two result lines`);
    byIndex.set(l.index, l);
  }
  const missing = indices.filter((i) => !byIndex.has(i));
  if (missing.length > 0)
    throw new Error(`no result for ${missing.length} indices, e.g. ${missing.slice(0, 5).join(', ')}`);
  if (byIndex.size !== indices.length) throw new Error(`${byIndex.size} result lines for ${indices.length} inputs`);
  return byIndex;
}

/** Remote jobs the platform created for an endpoint (counted by the platform, not by sluice). */
export const platformJobs = (s: Stack, endpointId: string) => s.platform.engine.jobs.ofEndpoint(endpointId);

/** A real stack and a batch client for one test file (stopped in afterAll). */
export function batchStack(options?: Parameters<typeof orchestratorStack>[0]): {
  readonly s: Stack;
  readonly batch: BatchClient;
} {
  const ctx = {} as { s: Stack; batch: BatchClient };
  beforeAll(async () => {
    ctx.s = await orchestratorStack(options);
    ctx.batch = new BatchClient({
      client: ctx.s.env.client,
      resultsDir: ctx.s.resultsDir,
      resultsUrl: ctx.s.resultsUrl,
    });
  });
  afterAll(() => ctx.s?.dispose());
  return ctx;
}
