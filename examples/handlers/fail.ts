/** Always fails with `input.message` (default "failed on purpose"). Run: `tsx examples/handlers/fail.ts`. */
import { z } from 'zod';
import { type Job, parseInput, serve } from '../../worker-sdk';

const Input = z.object({ message: z.string().optional() });

export function handler(job: Job): never {
  const { message } = parseInput(Input, job.input);
  throw new Error(message ?? 'failed on purpose');
}

if (require.main === module) {
  serve(handler).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
