/**
 * Fails until it has been attempted more than `input.failTimes` (default 2) times, counting
 * attempts in the file `input.counterFile`; then returns `{attempts}`.
 * Run: `tsx examples/handlers/flaky.ts`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { type Job, parseInput, serve } from '../../worker-sdk';

const Input = z.object({
  counterFile: z.string().min(1),
  failTimes: z.number().int().min(0).default(2),
});

async function readCount(file: string): Promise<number> {
  try {
    const n = Number.parseInt((await readFile(file, 'utf8')).trim(), 10);
    return Number.isFinite(n) && n > 0 ? n : 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw err;
  }
}

export async function handler(job: Job): Promise<{ attempts: number }> {
  const { counterFile, failTimes } = parseInput(Input, job.input);
  const previous = await readCount(counterFile);
  const attempts = previous + 1;
  await writeFile(counterFile, `${attempts}\n`);
  if (previous < failTimes) throw new Error(`flaky failure: attempt ${attempts} of ${failTimes + 1}`);
  return { attempts };
}

if (require.main === module) {
  serve(handler).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
