/**
 * Streams `input.chunks` (default 3) chunks `{index, text}`, waiting `input.delayMs` (default 0)
 * between them; stops early when the job is stopped. Run: `tsx examples/handlers/stream.ts`.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { z } from 'zod';
import { type Job, parseInput, serve } from '../../worker-sdk';

const Input = z.object({
  chunks: z.number().int().min(0).max(100_000).default(3),
  delayMs: z.number().int().min(0).default(0),
});

export async function* handler(job: Job): AsyncGenerator<{ index: number; text: string }> {
  const { chunks, delayMs } = parseInput(Input, job.input);
  for (let i = 0; i < chunks; i++) {
    if (i > 0 && delayMs > 0) await delay(delayMs, undefined, { signal: job.signal });
    if (job.signal.aborted) return;
    yield { index: i, text: `chunk ${i}` };
  }
}

if (require.main === module) {
  serve(handler).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
