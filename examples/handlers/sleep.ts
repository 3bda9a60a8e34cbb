/**
 * Sleeps `input.ms` (default 1000; cut short when the job is stopped), then returns `{slept: ms}`.
 * With `input.progress: true` it reports `{pct}` at 25, 50 and 75 %. With `input.untilFile` it sleeps
 * until that file exists instead (looked for every 50 ms: a test's gate) and returns the ms it slept.
 * Run: `tsx examples/handlers/sleep.ts`.
 */
import { existsSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { type Job, parseInput, serve } from '../../worker-sdk';

const Input = z.object({
  ms: z.number().int().min(0).default(1000),
  progress: z.boolean().default(false),
  untilFile: z.string().optional(),
});

const STEPS = 4;

export async function handler(job: Job): Promise<{ slept: number }> {
  const { ms, progress, untilFile } = parseInput(Input, job.input);
  if (untilFile) {
    const start = Date.now();
    while (!existsSync(untilFile)) await delay(50, undefined, { signal: job.signal });
    return { slept: Date.now() - start };
  }
  if (!progress) {
    await delay(ms, undefined, { signal: job.signal });
    return { slept: ms };
  }
  for (let step = 1; step <= STEPS; step++) {
    await delay(Math.round((ms * step) / STEPS) - Math.round((ms * (step - 1)) / STEPS), undefined, {
      signal: job.signal,
    });
    // progress() never rejects and is delivered before the result: fire-and-forget is safe.
    if (step < STEPS) void job.progress({ pct: (100 * step) / STEPS });
  }
  return { slept: ms };
}

if (require.main === module) {
  serve(handler).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
