/** Returns the job's input as its output. Run: `tsx examples/handlers/echo.ts`. */
import { type Job, serve } from '../../worker-sdk';

export function handler(job: Job): unknown {
  return job.input;
}

if (require.main === module) {
  serve(handler).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
