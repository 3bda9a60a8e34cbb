/**
 * Several daemons on one task queue behind one public URL, sharing a bucket on a real S3-compatible
 * server (issue 12): a batch whose step is running on a daemon that is SIGKILLed, another daemon
 * added mid-way, ends with every index exactly once in the bucket, one remote job per input on the
 * platform, its steps run by both surviving daemons and its webhooks received by several of them.
 */
import { type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BatchClient } from '../../client/batch';
import { hasExited, signalGroup, stopProcessGroup } from '../../common/process';
import { spawnWatched } from '../../common/watchdog';
import { daemonEnv, temporalEnv } from '../helpers/orchestrator';
import { addEndpoint, eventually, exampleCommand, freePort, testPlatform } from '../helpers/platform';
import { everyIndexOnce, s3Results, type ResultsLocation } from '../helpers/results-location';
import { startRoundRobin, type RoundRobin } from '../helpers/round-robin';
import { openResultsStore } from '../../results/store/open';
import { allKeys } from '../../results/store/object-store';
import { batchKeys } from '../../contracts/names';
import { inputFile } from './helpers';

const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');
const TASK_QUEUE = 'multi-daemon';
const SECRET = 'multi-daemon-shared-secret';
const WORKERS = 6;

/** A `sluice worker` process in its own process group (under a supervisor that stops it if the test process dies). */
interface DaemonProc {
  name: string;
  port: number;
  proc: ChildProcess;
  out: () => string;
}

describe('several daemons on one task queue', () => {
  let env: Awaited<ReturnType<typeof temporalEnv>>;
  let platform: Awaited<ReturnType<typeof testPlatform>>;
  let results: ResultsLocation;
  let balancer: RoundRobin;
  let endpointId: string;
  const daemons: DaemonProc[] = [];
  const inputDirs: string[] = [];

  /** Starts daemon `name` on its own port behind the balancer's one public URL, with the shared secret and results store. */
  const startDaemon = async (name: string): Promise<DaemonProc> => {
    const port = await freePort();
    const e = {
      ...daemonEnv({ url: platform.url, apiKey: platform.apiKey }, env.address, '', {
        SLUICE_TASK_QUEUE: TASK_QUEUE,
        SLUICE_DAEMON_PORT: String(port),
        SLUICE_PUBLIC_URL: balancer.url,
        SLUICE_WEBHOOK_SECRET: SECRET,
        SLUICE_WEBHOOK_FALLBACK_MS: '1000',
      }),
      ...results.env,
    };
    // daemonEnv names a results dir; the location decides (a directory, or SLUICE_RESULTS_URL).
    if (!('SLUICE_RESULTS_DIR' in results.env)) delete (e as Record<string, string>).SLUICE_RESULTS_DIR;
    const proc = spawnWatched(process.execPath, [bin, 'worker'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      graceMs: 2000,
      env: { ...process.env, SLUICE_LOG_LEVEL: 'warn', SLUICE_LOG_PRETTY: '0', ...e },
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const d = { name, port, proc, out: () => out };
    daemons.push(d);
    balancer.targets.push(port);
    await eventually(
      () => {
        if (hasExited(proc)) throw new Error(`daemon ${name} exited: ${out.slice(-2000)}`);
        return out.includes('sluice worker running');
      },
      60_000,
      100,
    );
    return d;
  };

  beforeAll(async () => {
    // The daemons share a bucket on a real S3-compatible server (several hosts could); the test's
    // own client reads it through the same AWS variables (restored after: the next file in this fork has its own).
    results = await s3Results();
    for (const [k, v] of Object.entries(results.env)) if (k.startsWith('AWS_')) vi.stubEnv(k, v);
    balancer = await startRoundRobin([]);
    [env, platform] = await Promise.all([temporalEnv(), testPlatform()]);
    endpointId = addEndpoint(platform, {
      name: 'sleep',
      command: exampleCommand('sleep'),
      workersMin: WORKERS,
      workersMax: WORKERS,
      idleTimeout: 60,
    }).id;
  });

  afterAll(async () => {
    // Every daemon's whole process group, whatever state the test left it in.
    await Promise.all(daemons.map((d) => stopProcessGroup(d.proc, 3000)));
    await balancer?.close();
    await platform?.dispose();
    await env?.teardown();
    await results?.dispose();
    for (const d of inputDirs) rmSync(d, { recursive: true, force: true });
    vi.unstubAllEnvs();
  });

  it('a daemon SIGKILLed mid-step and one added: every index once, one remote job per input, both survivors ran steps', async () => {
    const [a, b] = await Promise.all([
      startDaemon('a'),
      startDaemon('b'),
      eventually(() => platform.pool.workerCounts(endpointId).idle >= WORKERS, 60_000, 100),
    ]);
    const n = 400;
    const { file, dir } = inputFile(Array.from({ length: n }, (_, i) => ({ ms: 150, i })));
    inputDirs.push(dir);
    const outDir = results.out('batch');
    const batch = new BatchClient({ client: env.client, taskQueue: TASK_QUEUE, resultsUrl: results.resultsUrl });
    // A short run per continue-as-new: each new run's first workflow task goes to any daemon of the
    // task queue (Temporal keeps a run, and by eager dispatch its steps, on the daemon that has it).
    const id = await batch.start({
      endpointId,
      source: file,
      outDir,
      options: {
        concurrency: 2 * WORKERS,
        stepsPerRun: 2,
        webhookFallbackMs: 1000,
        retry: { maxAttempts: 6, initialBackoffMs: 200 },
      },
    });
    const handle = env.client.workflow.getHandle(id);

    // Some outcomes exist: SIGKILL the daemon whose step is running right now.
    await eventually(async () => (await batch.state(id)).counts.done >= 40, 60_000, 100);
    const victim = (await eventually(
      async () => {
        const d = await handle.describe();
        const who = d.raw.pendingActivities?.find((p) => p.lastWorkerIdentity)?.lastWorkerIdentity ?? '';
        return [a, b].find((x) => who.endsWith(`:${x.port}`));
      },
      30_000,
      20,
    ))!;
    const doneAtKill = (await batch.state(id)).counts.done;
    signalGroup(victim.proc, 'SIGKILL');
    await eventually(() => hasExited(victim.proc), 10_000);
    const c = await startDaemon('c');
    const survivors = [a, b].filter((x) => x !== victim).concat(c);

    const summary = await batch.result(id);
    expect(doneAtKill).toBeLessThan(n);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: n });

    // Every index exactly once in results.jsonl, each with the one remote job it ran as.
    const byIndex = everyIndexOnce(await results.resultLines(outDir), n);
    for (const r of byIndex.values()) expect(r.remoteJobIds, `index ${r.index}`).toHaveLength(1);
    const ids = new Set([...byIndex.values()].map((r) => r.remoteJobIds[0]!));
    expect(ids.size).toBe(n);
    // The platform's own count: one job per input (the killed step's submissions were journaled,
    // or replayed by their idempotency key), all completed, and they are the ones in the results.
    const jobs = platform.engine.jobs.ofEndpoint(endpointId);
    expect(jobs.map((j) => j.status).sort()).toEqual(Array<string>(n).fill('COMPLETED'));
    expect(new Set(jobs.map((j) => j.id))).toEqual(ids);

    // Who ran the steps, as Temporal recorded it (ActivityTaskStarted identities of every run). The
    // victim's killed attempt is not there (Temporal records the started event of the attempt that
    // ended, here its retry on a survivor); that it ran a step is what picked it. The runs move
    // between the survivors (each new run's first workflow task goes to any poller of the queue).
    const ranBy = new Map<string, number>();
    const first = await handle.describe();
    for (let runId: string | undefined = first.raw.workflowExecutionInfo?.firstRunId || first.runId; runId;) {
      const h = await env.client.workflow.getHandle(id, runId).fetchHistory();
      for (const ev of h.events ?? []) {
        const who = ev.activityTaskStartedEventAttributes?.identity;
        const d = who ? daemons.find((x) => who.endsWith(`:${x.port}`)) : undefined;
        if (d) ranBy.set(d.name, (ranBy.get(d.name) ?? 0) + 1);
      }
      runId = h.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    }
    for (const s of survivors)
      expect(ranBy.get(s.name) ?? 0, `steps run by ${s.name}: ${JSON.stringify([...ranBy])}`).toBeGreaterThan(0);

    // Webhooks went through the one URL to every daemon, and were answered after being kept in the
    // bucket's inbox logs (one per receiving daemon) that the steps read, wherever they ran.
    for (const s of survivors)
      expect(balancer.answered.get(s.port)?.get(200) ?? 0, `webhooks ${s.name} accepted`).toBeGreaterThan(0);
    const store = openResultsStore(results.resultsUrl);
    try {
      const logs = await allKeys(
        store,
        batchKeys.inboxPrefix({ workflowId: id, runId: first.raw.workflowExecutionInfo?.firstRunId || first.runId }),
      );
      expect(logs.length).toBeGreaterThanOrEqual(2);
    } finally {
      await store.close();
    }
  });
});
