/**
 * The user's own activity of the two-batches example: it reads the first batch's results through
 * sluice's library (`sluice.batch.results`) and writes the second batch's input, one line per group
 * with the sum and count of the inputs' `n`. In a user's project the import is `from 'sluice'`.
 */
import { writeFile } from 'node:fs/promises';
import { type SluiceClient } from '../../client';

export interface AggregateRequest {
  /** The first batch (its id as runBatch's result names it). */
  batchId: string;
  /** The JSONL file to write. */
  dest: string;
  groups: number;
}

export interface AggregateActivities {
  aggregate(request: AggregateRequest): Promise<{ file: string; lines: number }>;
}

export function createAggregateActivities(sluice: SluiceClient): AggregateActivities {
  return {
    async aggregate({ batchId, dest, groups }) {
      const sums = new Map<number, { group: number; total: number; count: number }>();
      for await (const line of sluice.batch.results(batchId)) {
        if (line.status !== 'COMPLETED') continue;
        const n = (line.output as { n?: unknown } | undefined)?.n;
        if (typeof n !== 'number') continue;
        const group = n % groups;
        const sum = sums.get(group) ?? { group, total: 0, count: 0 };
        sum.total += n;
        sum.count += 1;
        sums.set(group, sum);
      }
      const lines = [...sums.values()].sort((a, b) => a.group - b.group).map((s) => JSON.stringify({ input: s }));
      await writeFile(dest, lines.join('\n') + '\n');
      return { file: dest, lines: lines.length };
    },
  };
}
