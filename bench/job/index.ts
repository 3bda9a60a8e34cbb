/**
 * bench/job: completion-notice latency of the job workflow (remote COMPLETED → workflow result),
 * HTTP calls per job and history events per job, with webhooks and with polling.
 *
 *   npx tsx bench/job/index.ts [--jobs 200] [--concurrency 1] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type CompletionMode } from '../../contracts';
import { jobStack, temporalDev } from './stack';
import { runBench } from '../main';

const { values } = parseArgs({
  options: { jobs: { type: 'string' }, concurrency: { type: 'string' }, json: { type: 'boolean' } },
});
const JOBS = Number(values.jobs ?? 200);
const CONCURRENCY = Number(values.concurrency ?? 1);

const pct = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function runMode(mode: CompletionMode) {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-job-'));
  const env = await temporalDev(dir);
  const stack = await jobStack(env, { dir, workers: 4 });
  const { platform, sluice } = stack;
  const echo = { id: stack.echoId };
  const completedAt = new Map<string, number>();
  platform.engine.on('finished', (job) => completedAt.set(job.id, Date.now()));
  // Warm-up: workers up (jobStack waited), workflow bundle loaded, connections open.
  for (let i = 0; i < 5; i++)
    await sluice.result(await sluice.start({ endpointId: echo.id, input: { warm: i }, options: { completion: mode } }));
  const before = await stack.calls();

  const latencies: number[] = [];
  const ids: string[] = [];
  let next = 0;
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < JOBS) {
        const i = next++;
        const id = await sluice.start({ endpointId: echo.id, input: { i }, options: { completion: mode } });
        ids.push(id);
        const r = await sluice.result(id);
        const done = Date.now();
        if (r.status !== 'COMPLETED') throw new Error(`job ${id} ended ${r.status}`);
        const remote = r.attempts[0]!.remoteJobId;
        latencies.push(done - completedAt.get(remote)!);
      }
    }),
  );
  const wall = Date.now() - t0;
  const after = await stack.calls();
  const calls = Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
  const total = Object.values(calls).reduce((a, b) => a + b, 0);
  const events: number[] = [];
  for (const id of ids) events.push((await env.client.workflow.getHandle(id).fetchHistory()).events!.length);
  await stack.close();
  await env.teardown();
  rmSync(dir, { recursive: true, force: true });
  return {
    mode,
    jobs: JOBS,
    concurrency: CONCURRENCY,
    wallMs: wall,
    jobsPerSecond: +(JOBS / (wall / 1000)).toFixed(1),
    noticeP50Ms: pct(latencies, 50),
    noticeP99Ms: pct(latencies, 99),
    callsPerJob: +(total / JOBS).toFixed(3),
    callsBeyondSubmitPerJob: +((total - (calls.run ?? 0)) / JOBS).toFixed(3),
    calls,
    eventsPerJobMean: +(events.reduce((a, b) => a + b, 0) / events.length).toFixed(1),
    eventsPerJobMax: Math.max(...events),
  };
}

async function main(): Promise<void> {
  const results = [await runMode('webhook'), await runMode('poll')];
  if (values.json) {
    console.log(JSON.stringify({ date: new Date().toISOString(), results }, null, 2));
    return;
  }
  console.log(
    `bench/job: ${JOBS} echo jobs per mode, ${CONCURRENCY} at a time, 4 warm workers, real Temporal dev server`,
  );
  console.log('mode     notice p50  notice p99  calls/job  beyond submit  events/job (mean/max)  jobs/s');
  for (const r of results) {
    console.log(
      `${r.mode.padEnd(8)} ${`${r.noticeP50Ms} ms`.padStart(10)}  ${`${r.noticeP99Ms} ms`.padStart(10)}  ${String(r.callsPerJob).padStart(9)}  ${String(r.callsBeyondSubmitPerJob).padStart(13)}  ${`${r.eventsPerJobMean}/${r.eventsPerJobMax}`.padStart(21)}  ${String(r.jobsPerSecond).padStart(6)}`,
    );
  }
  const w = results[0]!;
  console.log(
    `goals (webhook): p50 <= 100 ms: ${w.noticeP50Ms <= 100 ? 'met' : 'NOT met'}; <= 1.1 calls beyond submit: ${w.callsBeyondSubmitPerJob <= 1.1 ? 'met' : 'NOT met'}; <= 25 events: ${w.eventsPerJobMax <= 25 ? 'met' : 'NOT met'}`,
  );
}

runBench(main);
