/**
 * bench/job/faults: N job workflows (a window of C at a time) fault-free, then through each fault
 * row of bench/faults (the same seeds, the platform's fault mode; every webhook lost by an
 * unreachable public URL), each row on a fresh platform and daemon sharing one Temporal dev server:
 * time relative to fault-free in the same run, beside the row's goal, and exactness (each job
 * COMPLETED once with its own output after one attempt; the platform holds one remote job per job,
 * no idempotency key used twice). Each row first runs 4 jobs off the clock (a fresh daemon's first
 * workflows load its bundle). The kills rows are bench/faults' alone (processes, not in-process).
 *
 *   npx tsx bench/job/faults.ts [--jobs 200] [--concurrency 20] [--workers 8] [--rows 429,...] [--timeout 300] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { parseFaultSpec } from '../../platform/faults/spec';
import { platformJobsByInput } from '../../test/faults/helpers';
import { load1 } from '../multi/procs';
import { rowLine, within, type RowRun } from '../faults/report';
import { ROWS, specOf, type FaultRow } from '../faults/rows';
import { jobStack, temporalDev } from './stack';
import { printRows, runBench } from '../main';

const { values } = parseArgs({
  options: {
    jobs: { type: 'string' },
    concurrency: { type: 'string' },
    workers: { type: 'string' },
    rows: { type: 'string' },
    timeout: { type: 'string' },
    json: { type: 'boolean' },
  },
});
const JOBS = Number(values.jobs ?? 200);
const CONCURRENCY = Number(values.concurrency ?? 20);
const WORKERS = Number(values.workers ?? 8);
const TIMEOUT_MS = Number(values.timeout ?? 300) * 1000;
/** Jobs run before the clock starts (inputs -1, -2, ...), in every row alike. */
const WARM = 4;
const wanted = values.rows?.split(',');
const rows = ROWS.filter((r) => !r.kills && (!wanted || wanted.includes(r.key)));

/** One measured row, with the daemon's queue calls (the 429 row's rate is drawn from the fault-free run's). */
type Run = RowRun & { queueCalls: number };

/** Runs JOBS job workflows, CONCURRENCY at a time, on a fresh platform (`spec`) and daemon. */
async function runOnce(
  env: TestWorkflowEnvironment,
  dir: string,
  key: string,
  spec: string,
  row?: FaultRow,
): Promise<Run> {
  const applied: Record<string, number> = {};
  // The platform's one debug line per applied fault, counted by kind.
  const platformLogger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        const kind = (JSON.parse(line) as { fault?: string }).fault;
        if (kind) applied[kind] = (applied[kind] ?? 0) + 1;
      },
    },
  );
  const stack = await jobStack(env, {
    dir: join(dir, key),
    workers: WORKERS,
    taskQueue: `bench-job-faults-${key}`,
    platformLogger,
    ...(spec ? { faults: parseFaultSpec(spec) } : {}),
    ...(row?.unreachable ? { unreachable: true } : {}),
  });
  try {
    // Warm-up, off the clock: the first workflows of a daemon load its bundle and open its connections.
    await Promise.all(
      Array.from({ length: WARM }, async (_, k) =>
        stack.sluice.result(await stack.sluice.start({ endpointId: stack.echoId, input: { i: -1 - k } })),
      ),
    );
    const problems: string[] = [];
    const ids: string[] = [];
    let next = 0;
    const t0 = Date.now();
    const work = Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < JOBS) {
          const i = next++;
          const id = await stack.sluice.start({ endpointId: stack.echoId, input: { i } });
          ids[i] = id;
          const r = await stack.sluice.result(id);
          if (r.status !== 'COMPLETED') problems.push(`job ${i} ${r.status}`);
          else if (!isDeepStrictEqual(r.output, { i })) problems.push(`job ${i}: not its own output`);
          if (r.attempts.length !== 1) problems.push(`job ${i}: ${r.attempts.length} attempts`);
        }
      }),
    );
    const ended = await within(work, TIMEOUT_MS);
    const wallMs = Date.now() - t0;
    if (ended === 'timeout') {
      next = JOBS;
      await Promise.all(
        ids.map((id) =>
          env.client.workflow
            .getHandle(id)
            .terminate('bench: past --timeout')
            .catch(() => undefined),
        ),
      );
      return { wallMs, timedOut: true, applied, queueCalls: -1, problems: ['stopped at the timeout'] };
    }
    const { byInput: all, keyShared } = platformJobsByInput(stack, stack.echoId);
    const byInput = new Map([...all].filter(([i]) => i >= 0));
    if (keyShared) problems.push(`${keyShared} idempotency keys used twice`);
    const notOne = [...byInput.values()].filter((j) => j.length !== 1).length;
    if (byInput.size !== JOBS || notOne)
      problems.push(`the platform holds jobs for ${byInput.size} inputs, ${notOne} not one`);
    const calls = Object.values(await stack.calls()).reduce((a, b) => a + b, 0);
    return { wallMs, timedOut: false, applied, queueCalls: calls, problems } satisfies Run;
  } finally {
    await stack.close();
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-job-faults-'));
  const env = await temporalDev(dir);
  const out: Record<string, unknown>[] = [];
  const load = [load1()];
  try {
    const free = await runOnce(env, dir, 'fault-free', '');
    out.push(rowLine(free, free, TIMEOUT_MS));
    for (const row of rows) {
      const r = await runOnce(env, dir, row.key, specOf(row, free.queueCalls), row);
      out.push({
        ...rowLine(r, free, TIMEOUT_MS, row),
        spec: specOf(row, free.queueCalls) || (row.unreachable ? 'SLUICE_PUBLIC_URL=closed port' : ''),
      });
      console.error(out.at(-1));
      load.push(load1());
    }
    const meta = {
      jobs: JOBS,
      concurrency: CONCURRENCY,
      workers: WORKERS,
      faultFreeQueueCalls: free.queueCalls,
      load1: load,
    };
    printRows(meta, out, values.json);
  } finally {
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
}

runBench(main);
