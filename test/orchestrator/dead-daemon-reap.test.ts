/**
 * The reap of a dead daemon's activities (worker/reap.ts), on the real stack: two `sluice worker`
 * processes hold job workflows' webhook waits; one is SIGKILLed and a new one started. The dead
 * one's waits are failed at the new daemon's start and retried at once (not after their 30 s
 * heartbeat timeout), the survivor's stay untouched (same attempt, same daemon), and every job
 * workflow completes with its own output and exactly one remote job.
 */
import { type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobClient } from '../../client/job';
import { hasExited, signalGroup, stopProcessGroup } from '../../common/process';
import { spawnWatched } from '../../common/watchdog';
import { exampleEndpoint } from '../faults/helpers';
import { daemonEnv, orchestratorStack } from '../helpers/orchestrator';
import { eventually, freePort } from '../helpers/platform';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;
const bin = join(__dirname, '..', '..', 'bin', 'sluice.cjs');
const TASK_QUEUE = 'reap-test';
/** Each job's sleep: long past the reap, well within the test (the waits' heartbeat timeout is 30 s). */
const SLEEP_MS = 20_000;

interface DaemonProc {
  port: number;
  proc: ChildProcess;
  out: () => string;
}

/** A job workflow's webhook wait as Temporal shows it: its attempt, the daemon that started it, its last failure. */
interface Wait {
  attempt: number;
  worker: string;
  failure: string;
}

describe("a dead daemon's activities, reaped by the next daemon of its host", () => {
  let s: Stack;
  let ep: string;
  const daemons: DaemonProc[] = [];

  beforeAll(async () => {
    s = await orchestratorStack();
    ep = await exampleEndpoint(s, 'sleep', 12);
  });
  afterAll(async () => {
    await Promise.all(daemons.map((d) => stopProcessGroup(d.proc, 3000)));
    await s?.dispose();
  });

  const startDaemon = async (): Promise<DaemonProc> => {
    const port = await freePort();
    const env = daemonEnv(s.platform, s.env.address, s.resultsDir, {
      SLUICE_TASK_QUEUE: TASK_QUEUE,
      SLUICE_DAEMON_PORT: String(port),
      SLUICE_LOG_LEVEL: 'info',
      SLUICE_LOG_PRETTY: '0',
    });
    const proc = spawnWatched(process.execPath, [bin, 'worker'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      graceMs: 2000,
      env: { ...process.env, ...env },
    });
    let out = '';
    proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const d = { port, proc, out: () => out };
    daemons.push(d);
    await eventually(() => {
      if (hasExited(proc)) throw new Error(`daemon exited: ${out.slice(-2000)}`);
      return out.includes('sluice worker running');
    }, 60_000);
    return d;
  };

  /** The webhook wait of each workflow (by workflow id) once every one has started. */
  const waits = async (ids: string[]): Promise<Map<string, Wait>> => {
    const m = new Map<string, Wait>();
    for (const id of ids) {
      const d = await s.env.client.workflow.getHandle(id).describe();
      const a = d.raw.pendingActivities?.find((p) => p.activityId?.startsWith('await/') && p.state === 2);
      if (a)
        m.set(id, {
          attempt: a.attempt ?? 0,
          worker: a.lastWorkerIdentity ?? '',
          failure: a.lastFailure?.message ?? '',
        });
    }
    return m;
  };
  const on = (d: DaemonProc, w: Map<string, Wait>): string[] =>
    [...w].filter(([, x]) => x.worker.endsWith(`:${d.port}`)).map(([id]) => id);

  it("fails the dead daemon's started waits at once, leaves the survivor's alone, each job once", async () => {
    const [a, b] = await Promise.all([startDaemon(), startDaemon()]);
    const jobs = new JobClient({ client: s.env.client, taskQueue: TASK_QUEUE, resultsDir: s.resultsDir });
    const ids: string[] = [];
    let held = new Map<string, Wait>();
    // Four more workflows until each daemon holds at least two waits (Temporal picks the daemon).
    for (let round = 0; round < 3 && (on(a, held).length < 2 || on(b, held).length < 2); round++) {
      for (let k = 0; k < 4; k++) ids.push(await jobs.start({ endpointId: ep, input: { ms: SLEEP_MS + ids.length } }));
      held = (await eventually(async () => {
        const w = await waits(ids);
        return w.size === ids.length ? w : undefined;
      }, 30_000))!;
    }
    const [victim, survivor] = on(a, held).length >= on(b, held).length ? [a, b] : [b, a];
    const dead = on(victim, held);
    const alive = on(survivor, held);
    expect(dead.length).toBeGreaterThan(0);
    expect(alive.length).toBeGreaterThan(0);

    const killedAt = Date.now();
    // The daemon and its supervisor at once: a crash (the supervisor would only stop it gracefully).
    signalGroup(victim.proc, 'SIGKILL');
    await eventually(() => hasExited(victim.proc), 10_000);
    const c = await startDaemon();
    // Each of the dead daemon's waits runs again on a live daemon, failed by the reap (its failure
    // names the dead daemon), long before its 30 s heartbeat timeout.
    const moved = (await eventually(async () => {
      const w = await waits(ids);
      return dead.every((id) => (w.get(id)?.attempt ?? 1) >= 2) ? w : undefined;
    }, 20_000).catch((err: Error) => {
      // What the new daemon said of its reap.
      throw new Error(
        `${err.message}; the new daemon: ${c
          .out()
          .split('\n')
          .filter((l) => l.includes('reap'))
          .join('\n')}`,
      );
    }))!;
    const movedMs = Date.now() - killedAt;
    expect(movedMs).toBeLessThan(25_000);
    for (const id of dead) {
      expect(moved.get(id)!.failure, id).toMatch(/is gone .*failed for a retry/);
      expect(moved.get(id)!.worker, id).not.toMatch(new RegExp(`:${victim.port}$`));
    }
    // The survivor's waits: the same attempt on the same daemon.
    for (const id of alive) expect(moved.get(id), id).toEqual(held.get(id));
    const metrics = await (await fetch(`http://127.0.0.1:${c.port}/metrics`)).text();
    expect(metrics).toMatch(new RegExp(`sluice_dead_daemon_activities_reaped_total ${dead.length}\\b`));

    // Every job once: its own output, one attempt, one remote job per workflow on the platform.
    const results = await Promise.all(ids.map((id) => jobs.result(id)));
    results.forEach((r, k) => {
      expect(r.status).toBe('COMPLETED');
      expect(r.attempts).toHaveLength(1);
      expect(r.output).toEqual({ slept: SLEEP_MS + k });
    });
    const remote = s.platform.engine.jobs.ofEndpoint(ep);
    expect(remote).toHaveLength(ids.length);
    expect(new Set(results.map((r) => r.attempts[0]!.remoteJobId)).size).toBe(ids.length);
  });
});
