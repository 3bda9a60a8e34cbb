/**
 * One endpoint, several behaviours, chosen by `input.kind`: `echo` (default), `fail`, `flaky`,
 * `sleep` (the other example handlers). With `input.traceFile` it appends `start|end <key> <ms>`
 * lines, so a test can measure how many jobs of one key ran at once. Run: `tsx examples/handlers/mixed.ts`.
 */
import { appendFileSync } from 'node:fs';
import { type Job, serve } from '../../worker-sdk';
import { handler as echo } from './echo';
import { handler as fail } from './fail';
import { handler as flaky } from './flaky';
import { handler as sleep } from './sleep';

const modes = { echo, fail, flaky, sleep } as const;

export async function handler(job: Job): Promise<unknown> {
  const input = job.input as { kind?: keyof typeof modes; traceFile?: string; key?: string };
  const run = modes[input.kind ?? 'echo'];
  if (!run) throw new Error(`unknown kind ${String(input.kind)}`);
  const trace = (what: string): void => {
    if (input.traceFile) appendFileSync(input.traceFile, `${what} ${input.key ?? '-'} ${Date.now()} ${job.id}\n`);
  };
  trace('start');
  try {
    return await run(job);
  } finally {
    trace('end');
  }
}

if (require.main === module) {
  serve(handler).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
