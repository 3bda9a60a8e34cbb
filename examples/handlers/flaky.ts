/**
 * Fails until it has been attempted more than `input.failTimes` (default 2) times, counting
 * attempts in the file `input.counterFile`; then returns `{attempts}`. With `mode: "hang"` a
 * failing attempt hangs until the platform stops it (executionTimeout, cancel).
 * Run: `tsx examples/handlers/flaky.ts`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { z } from 'zod';
import { type Job, parseInput, serve } from '../../worker-sdk';

const Input = z.object({
  counterFile: z.string().min(1),
  failTimes: z.number().int().min(0).default(2),
  /** How a failing attempt fails: throw at once, or hang until stopped (to exercise timeouts). */
  mode: z.enum(['fail', 'hang']).default('fail'),
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
  const { counterFile, failTimes, mode } = parseInput(Input, job.input);
  const previous = await readCount(counterFile);
  const attempts = previous + 1;
  await writeFile(counterFile, `${attempts}\n`);
  if (previous < failTimes && mode === 'hang') {
    await new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve(), { once: true }));
    throw new Error(`flaky hang stopped: attempt ${attempts}`);
  }
  if (previous < failTimes) throw new Error(`flaky failure: attempt ${attempts} of ${failTimes + 1}`);
  return { attempts };
}

if (require.main === module) {
  serve(handler).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
