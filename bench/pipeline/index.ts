/**
 * bench/pipeline: a two-stage pipeline (stage 2's jobs three times slower than stage 1's, on its
 * own endpoint) against the same work as two batches run one after the other with the glue between
 * them (stage 1's results.jsonl turned into stage 2's inputs): wall time of each, history events per
 * input per stage, HTTP calls per job, the daemon's peak RSS. The stack is the batch bench's.
 *
 *   npx tsx bench/pipeline/index.ts [--inputs 100000] [--ms 40] [--workers 4] [--slow-workers 12]
 *                                   [--concurrency 8] [--slow-concurrency 24] [--order pipeline-first]
 *                                   [--timeline] [--json] [--help]
 *
 * `--order` is `pipeline-first`, `sequential-first` or `pipeline-only` (no sequential batches: the
 * pipeline's own figures, e.g. its history events, in half the time).
 *
 * Stage 1 sleeps `--ms` per job on `--workers` workers; stage 2 sleeps 3 x `--ms` on
 * `--slow-workers` (default 3 x `--workers`: both stages then take as long alone). `--timeline`
 * samples the pipeline every 2 s (stderr: each stage's rows fed, inputs at it, jobs in flight, why it
 * waits) and reports how full each stage's window was on average. Each run also reports the daemon's
 * CPU ms and results-store calls per job (`daemonCpuMsPerJob`, `storeOpsPerJob`, `storeOps` by call):
 * its own costs, which the machine's load does not change the way it changes wall time; and the CPU ms
 * per job of every part of the stack (`stackCpuMsPerJob`: this process with the platform, the daemon,
 * Temporal, the workers), whose sum bounds how fast both stages can run at once on a small machine.
 * BENCH_DAEMON_NODE_ARGS passes node flags to the daemon (`--cpu-prof --cpu-prof-dir=DIR`: a profile).
 */
import { createReadStream, mkdtempSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir, loadavg } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BatchClient } from '../../client/batch';
import { PipelineClient } from '../../client/pipeline';
import { type BatchResultLine, type PipelineDefinitionInput } from '../../contracts';
import { stageBatchId } from '../../contracts/names';
import {
  benchPlatform,
  callsBetween,
  cpuSecondsOf,
  daemonEnv,
  daemonProcess,
  historyEvents,
  httpCalls,
  rssOf,
  rssSampler,
  stackCpuSeconds,
  storeOps,
  temporalEnv,
  warmEndpoint,
} from '../batch/stack';
import { benchArgs, runBench } from '../main';

const USAGE = `
Usage: npx tsx bench/pipeline/index.ts [options]
  --inputs N             inputs (default 100000)
  --ms MS                stage 1's job time (default 40); stage 2's is 3 x MS
  --workers N            stage 1's workers (default 4)
  --slow-workers N       stage 2's workers (default 3 x --workers)
  --concurrency N        stage 1's window (default 2 x --workers)
  --slow-concurrency N   stage 2's window (default 2 x --slow-workers)
  --order ORDER          pipeline-first (default), sequential-first, pipeline-only
  --max-in-flight N      the pipeline's maxInFlight (default: the definition's, 1000)
  --timeline             sample the pipeline every 2 s (stderr)
  --json                 one JSON document
`;
const values = benchArgs(USAGE, {
  inputs: { type: 'string' },
  ms: { type: 'string' },
  workers: { type: 'string' },
  'slow-workers': { type: 'string' },
  concurrency: { type: 'string' },
  'slow-concurrency': { type: 'string' },
  order: { type: 'string' },
  'max-in-flight': { type: 'string' },
  timeline: { type: 'boolean' },
  json: { type: 'boolean' },
});
const N = Number(values.inputs ?? 100_000);
const MS = Number(values.ms ?? 40);
const WORKERS = Number(values.workers ?? 4);
const SLOW_WORKERS = Number(values['slow-workers'] ?? 3 * WORKERS);
const CONC = Number(values.concurrency ?? 2 * WORKERS);
const SLOW_CONC = Number(values['slow-concurrency'] ?? 2 * SLOW_WORKERS);
const ORDER = values.order ?? 'pipeline-first';
const MAX_IN_FLIGHT = values['max-in-flight'] === undefined ? undefined : Number(values['max-in-flight']);
if (!['pipeline-first', 'sequential-first', 'pipeline-only'].includes(ORDER)) {
  console.error(`--order: expected pipeline-first, sequential-first or pipeline-only, got ${ORDER}\n${USAGE}`);
  process.exit(2);
}
const load = (): string => loadavg()[0]!.toFixed(1);

/** The glue a user writes between the two batches: stage 1's results turned into stage 2's inputs. */
async function glue(results: string, dest: string): Promise<number> {
  const out = createWriteStream(dest);
  let n = 0;
  for await (const text of createInterface({ input: createReadStream(results) })) {
    const l = JSON.parse(text) as BatchResultLine & { output?: { slept: number } };
    if (l.status !== 'COMPLETED') continue;
    if (!out.write(`${JSON.stringify({ ms: l.output!.slept * 3, i: l.index })}\n`)) await once(out, 'drain');
    n++;
  }
  out.end();
  await once(out, 'finish');
  return n;
}

/**
 * Samples the pipeline's state every 2 s (stderr), and on stop the mean share of each stage's window
 * held by jobs in flight while the stage had inputs (a stage below 1 idles workers it could use).
 */
function timeline(pipeline: PipelineClient, windows: number[]) {
  const t0 = Date.now();
  const use = windows.map(() => ({ sum: 0, n: 0 }));
  let timer: NodeJS.Timeout | undefined;
  const sample = async (id: string): Promise<void> => {
    const st = await pipeline.state(id).catch(() => undefined);
    if (!st) return;
    const parts = st.stages.map((s, k) => {
      const b = s.batch;
      const inFlight = b?.counts.inFlight ?? 0;
      if (s.active > 0 && !s.closed) {
        use[k]!.sum += inFlight / windows[k]!;
        use[k]!.n++;
      }
      return `${s.name}: fed ${s.fed} at ${s.active} run ${inFlight} done ${b?.counts.done ?? 0} [${(b?.waiting ?? []).join(',')}]`;
    });
    const c = st.counts;
    console.error(
      `t=${((Date.now() - t0) / 1000).toFixed(0)}s read ${c.read} done ${c.done} | ${parts.join(' | ')} | load ${load()}`,
    );
  };
  return {
    start: (id: string) => {
      timer = setInterval(() => void sample(id), 2000);
    },
    stop: () => {
      clearInterval(timer);
      return use.map((u) => (u.n > 0 ? +(u.sum / u.n).toFixed(2) : null));
    },
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-pipeline-'));
  const env = await temporalEnv(dir);
  const out: Record<string, unknown> = {
    inputs: N,
    stage1: { ms: MS, workers: WORKERS, concurrency: CONC },
    stage2: { ms: 3 * MS, workers: SLOW_WORKERS, concurrency: SLOW_CONC },
    loadBefore: load(),
  };
  const platform = await benchPlatform(join(dir, 'platform'));
  try {
    const sleep = platform.examples.sleep!;
    const fast = await warmEndpoint(platform, { ...sleep, id: undefined, name: 'bench-fast' }, WORKERS);
    const slow = await warmEndpoint(platform, { ...sleep, id: undefined, name: 'bench-slow' }, SLOW_WORKERS);
    const taskQueue = 'bench-pipeline';
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    // BENCH_DAEMON_NODE_ARGS: node flags for the daemon only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
    const nodeArgs = (process.env.BENCH_DAEMON_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const daemon = await daemonProcess(daemonEnv({ temporal: env.address, platform, dir, port, taskQueue }), nodeArgs);
    const o = { client: env.client, taskQueue, resultsDir: join(dir, 'results') };
    const batch = new BatchClient(o);
    const pipeline = new PipelineClient(o);
    const source = join(dir, 'inputs.jsonl');
    writeFileSync(source, Array.from({ length: N }, (_, i) => `{"ms":${MS},"i":${i}}\n`).join(''));
    const measured = async <T>(go: () => Promise<T>) => {
      const before = await httpCalls(daemon.metricsUrl);
      const opsBefore = await storeOps(daemon.metricsUrl);
      const pid = daemon.child.pid!;
      const cpuBefore = cpuSecondsOf(pid);
      const stackBefore = stackCpuSeconds(pid);
      const sampler = rssSampler(pid);
      const t0 = Date.now();
      const r = await go();
      const wallMs = Date.now() - t0;
      sampler.stop();
      const jobs = 2 * N;
      // The daemon's own CPU and results-store calls per job: its cost, whatever the machine's load.
      const daemonCpuMsPerJob = +(((cpuSecondsOf(pid) - cpuBefore) * 1000) / jobs).toFixed(2);
      // And every part of the stack's: on two cores, their sum per job bounds how fast both stages can run at once.
      const stackAfter = stackCpuSeconds(pid);
      const stackCpuMsPerJob = Object.fromEntries(
        Object.entries(stackAfter).map(([k, v]) => [
          k,
          +(((v - stackBefore[k as keyof typeof stackBefore]) * 1000) / jobs).toFixed(2),
        ]),
      );
      const ops = callsBetween(opsBefore, await storeOps(daemon.metricsUrl));
      const storeOpsPerJob = +(ops.total / jobs).toFixed(2);
      const { calls, total } = callsBetween(before, await httpCalls(daemon.metricsUrl));
      return {
        r,
        wallMs,
        httpCallsPerJob: +(total / jobs).toFixed(3),
        calls,
        rssMaxMb: sampler.max,
        load: load(),
        daemonCpuMsPerJob,
        stackCpuMsPerJob,
        storeOpsPerJob,
        storeOps: ops.calls,
      };
    };
    const perInput = (x: { events: number }) => +(x.events / N).toFixed(4);

    const sequential = async () => {
      const m = await measured(async () => {
        const t0 = Date.now();
        const a = await batch.start({
          id: `seq-a-${Date.now()}`,
          endpointId: fast,
          source,
          outDir: join(dir, 'seq-a'),
          options: { concurrency: CONC },
        });
        const sa = await batch.result(a);
        const t1 = Date.now();
        const glued = await glue(join(dir, 'seq-a', 'results.jsonl'), join(dir, 'seq-b.jsonl'));
        const t2 = Date.now();
        const b = await batch.start({
          id: `seq-b-${Date.now()}`,
          endpointId: slow,
          source: join(dir, 'seq-b.jsonl'),
          outDir: join(dir, 'seq-b'),
          options: { concurrency: SLOW_CONC },
        });
        const sb = await batch.result(b);
        const stage = (st: typeof sa) => st.counts.byStatus.COMPLETED ?? 0;
        return {
          ids: [a, b],
          completed: [stage(sa), glued, stage(sb)],
          stageMs: [t1 - t0, t2 - t1, Date.now() - t2],
        };
      });
      const [ea, eb] = await Promise.all(m.r.ids.map((id) => historyEvents(env.client, id)));
      return {
        wallMs: m.wallMs,
        stage1Ms: m.r.stageMs[0],
        glueMs: m.r.stageMs[1],
        stage2Ms: m.r.stageMs[2],
        completed: { stage1: m.r.completed[0], glued: m.r.completed[1], stage2: m.r.completed[2] },
        eventsPerInput: { stage1: perInput(ea!), stage2: perInput(eb!) },
        httpCallsPerJob: m.httpCallsPerJob,
        calls: m.calls,
        daemonRssMaxMb: m.rssMaxMb,
        daemonCpuMsPerJob: m.daemonCpuMsPerJob,
        stackCpuMsPerJob: m.stackCpuMsPerJob,
        storeOpsPerJob: m.storeOpsPerJob,
        storeOps: m.storeOps,
        load: m.load,
      };
    };

    const piped = async () => {
      const definition: PipelineDefinitionInput = {
        name: 'bench',
        stages: [
          { name: 'a', endpoint: fast, input: "{ 'ms': $.input.ms, 'i': $.input.i }", concurrency: CONC },
          {
            name: 'b',
            endpoint: slow,
            input: "{ 'ms': $.a.output.slept * 3, 'i': $.input.i }",
            concurrency: SLOW_CONC,
          },
        ],
        output: '$.b.output',
        ...(MAX_IN_FLIGHT !== undefined ? { maxInFlight: MAX_IN_FLIGHT } : {}),
      };
      const tl = values.timeline ? timeline(pipeline, [CONC, SLOW_CONC]) : undefined;
      const m = await measured(async () => {
        const id = await pipeline.start({ id: `p-${Date.now()}`, definition, source, outDir: join(dir, 'pipe') });
        tl?.start(id);
        return { id, state: await pipeline.result(id) };
      });
      const windowUse = tl?.stop();
      const [ep, ea, eb] = await Promise.all([
        historyEvents(env.client, m.r.id),
        historyEvents(env.client, stageBatchId(m.r.id, 'a')),
        historyEvents(env.client, stageBatchId(m.r.id, 'b')),
      ]);
      return {
        wallMs: m.wallMs,
        completed: m.r.state.counts.byStatus.COMPLETED ?? 0,
        byStatus: m.r.state.counts.byStatus,
        eventsPerInput: { pipeline: perInput(ep), stage1: perInput(ea), stage2: perInput(eb) },
        eventsByType: { pipeline: ep.byType, stage1: ea.byType, stage2: eb.byType },
        runs: { pipeline: ep.runs, stage1: ea.runs, stage2: eb.runs },
        httpCallsPerJob: m.httpCallsPerJob,
        calls: m.calls,
        daemonRssMaxMb: m.rssMaxMb,
        daemonCpuMsPerJob: m.daemonCpuMsPerJob,
        stackCpuMsPerJob: m.stackCpuMsPerJob,
        storeOpsPerJob: m.storeOpsPerJob,
        storeOps: m.storeOps,
        load: m.load,
        ...(windowUse ? { windowUse } : {}),
      };
    };

    try {
      // Warm-up: the daemon's bundle and both endpoints' workers, off the clock.
      const warm = join(dir, 'warm.jsonl');
      writeFileSync(warm, `{"ms":1}\n`);
      await batch.result(await batch.start({ endpointId: fast, source: warm, outDir: join(dir, 'warm-a') }));
      await batch.result(await batch.start({ endpointId: slow, source: warm, outDir: join(dir, 'warm-b') }));
      if (ORDER === 'sequential-first') out.sequential = await sequential();
      out.pipeline = await piped();
      if (ORDER === 'pipeline-first') out.sequential = await sequential();
      const p = out.pipeline as { wallMs: number };
      const s = out.sequential as { wallMs: number; stage1Ms: number; stage2Ms: number } | undefined;
      if (s) {
        out.pipelineOverSequential = +(p.wallMs / s.wallMs).toFixed(3);
        out.pipelineOverSlowerStage = +(p.wallMs / Math.max(s.stage1Ms, s.stage2Ms)).toFixed(3);
      }
      out.daemonPeakRssMb = rssOf(daemon.child.pid!).peak;
    } finally {
      await daemon.stop();
    }
  } finally {
    await platform.close();
    await env.teardown();
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(values.json ? JSON.stringify(out, null, 2) : out);
}

runBench(main);
