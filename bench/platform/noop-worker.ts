/**
 * The no-op worker of the platform benchmark: the project's worker SDK with a handler that does
 * nothing. The platform spawns it from the bench endpoint's template.
 */
import { serve } from '../../worker-sdk';

const concurrency = Number(process.env.BENCH_WORKER_CONCURRENCY ?? '1');

serve(() => ({ ok: true }), { concurrency, shutdownGraceMs: 1000 }).catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
