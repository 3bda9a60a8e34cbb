/** Helpers of the fault tests: a real stack whose platform runs a fault mode, an example endpoint, a batch of sleepers, and the platform's own count of jobs per input. */
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { request } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import { type BatchResultLine } from '../../contracts';
import { type FaultsInput } from '../../platform';
import { orchestratorStack, temporalEnv } from '../helpers/orchestrator';
import { eventually, freePort } from '../helpers/platform';

export type Stack = Awaited<ReturnType<typeof orchestratorStack>>;
/** A {@link Stack} whose platform's log is counted ({@link faultyStack}). */
export type FaultyStack = Stack & { log: PlatformLog };

/**
 * One {@link temporalEnv} for a whole test file (started in `beforeAll`, stopped in `afterAll`), for files whose
 * tests each start a stack of their own on it (`orchestratorStack({ temporal: shared.env })`).
 */
export function sharedTemporal(): { readonly env: TestWorkflowEnvironment } {
  const ctx = {} as { env: TestWorkflowEnvironment };
  beforeAll(async () => {
    ctx.env = await temporalEnv();
  });
  afterAll(async () => {
    await ctx.env?.teardown();
  });
  return ctx;
}

/** How a row misbehaves: the platform's faults, and whether the daemon's public URL is unreachable. */
export interface FaultCase {
  faults?: FaultsInput;
  /** SLUICE_PUBLIC_URL is a closed port: every webhook the service sends is lost (a daemon behind NAT). */
  unreachable?: boolean;
}

/** What the platform logged: the faults it applied (its debug line `fault`, by kind) and its messages, by text. */
export interface PlatformLog {
  faults: Record<string, number>;
  messages: Record<string, number>;
  /** Each fault applied to a request, in order: its kind and the request's URL. */
  faultUrls: { fault: string; url: string }[];
}

/**
 * Temporal + a platform in fault mode + an in-process daemon; `dispose()` stops them all but a `temporal` given
 * (a file's {@link sharedTemporal}). `log` counts what the platform logged, so a test can
 * tell the faults did happen.
 */
export async function faultyStack(c: FaultCase, temporal?: TestWorkflowEnvironment): Promise<FaultyStack> {
  const log: PlatformLog = { faults: {}, messages: {}, faultUrls: [] };
  const count = (r: Record<string, number>, k: string): void => void (r[k] = (r[k] ?? 0) + 1);
  const logger = pino(
    { level: 'debug' },
    {
      write(line: string) {
        const o = JSON.parse(line) as { msg?: string; fault?: string; url?: string };
        if (o.fault) count(log.faults, o.fault);
        if (o.fault && o.url) log.faultUrls.push({ fault: o.fault, url: o.url });
        if (o.msg) count(log.messages, o.msg);
      },
    },
  );
  const s = await orchestratorStack({
    platform: { logger, ...(c.faults ? { faults: c.faults } : {}) },
    ...(temporal ? { temporal } : {}),
    ...(c.unreachable ? { daemon: async () => ({ SLUICE_PUBLIC_URL: `http://127.0.0.1:${await freePort()}` }) } : {}),
  });
  return Object.assign(s, { log });
}

/** The example endpoint `name` with `workers` workers kept up (waited for). */
export async function exampleEndpoint(
  s: Pick<Stack, 'platform'>,
  name: 'echo' | 'sleep',
  workers: number,
): Promise<string> {
  const ep = s.platform.registry.saveEndpoint({
    ...s.platform.examples[name]!,
    workersMin: workers,
    workersMax: workers,
  });
  await eventually(() => s.platform.pool.workerCounts(ep.id).idle >= workers, 60_000);
  return ep.id;
}

/** The example echo endpoint with `workers` workers kept up (waited for). */
export const echoEndpoint = (s: Stack, workers = 4): Promise<string> => exampleEndpoint(s, 'echo', workers);

/** How many inputs a restart test's batch has ({@link sleeperLines}). */
export const SLEEPERS = 120;
/** Input `i`'s sleep: each its own, so its output (`{ slept }`) is its own; about 5 s of work at concurrency 6. */
export const sleepMs = (i: number): number => 200 + (i % 10) * 10;
/** A restart test's input lines for the sleep endpoint: `{ i, ms }`. */
export const sleeperLines = (): { i: number; ms: number }[] =>
  Array.from({ length: SLEEPERS }, (_, i) => ({ i, ms: sleepMs(i) }));

/**
 * Every sleeper COMPLETED with its own output and one remote job, and the platform holds exactly
 * that job for it (no idempotency key shared): each input ran exactly once.
 */
export function expectEachSleeperOnce(
  s: Pick<Stack, 'platform'>,
  endpointId: string,
  results: Map<number, BatchResultLine>,
): void {
  for (const r of results.values()) {
    expect(r.status, `index ${r.index}`).toBe('COMPLETED');
    expect(r.output, `index ${r.index}`).toEqual({ slept: sleepMs(r.index) });
    expect(r.remoteJobIds, `index ${r.index}`).toHaveLength(1);
  }
  const { byInput, keyShared } = platformJobsByInput(s, endpointId);
  expect(keyShared).toBe(0);
  expect(byInput.size).toBe(SLEEPERS);
  for (const [i, jobs] of byInput) expect(jobs, `platform jobs of input ${i}`).toEqual(results.get(i)!.remoteJobIds);
}

/**
 * The jobs the platform holds for the endpoint (counted by the platform, not by sluice), grouped
 * by their input's `i`; and how many share an idempotency key.
 */
export function platformJobsByInput(
  s: { platform: Pick<Stack['platform'], 'engine'> },
  endpointId: string,
): { byInput: Map<number, string[]>; keyShared: number } {
  const byInput = new Map<number, string[]>();
  const byKey = new Map<string, number>();
  for (const j of s.platform.engine.jobs.ofEndpoint(endpointId)) {
    const i = (j.input as { i: number }).i;
    byInput.set(i, [...(byInput.get(i) ?? []), j.id]);
    if (j.idempotencyKey !== undefined) byKey.set(j.idempotencyKey, (byKey.get(j.idempotencyKey) ?? 0) + 1);
  }
  return { byInput, keyShared: [...byKey.values()].filter((n) => n > 1).length };
}

/** Sums of the daemon's counter `name` by the value of `label` (its /metrics, as Prometheus reads it). */
export async function daemonCounter(s: Stack, name: string, label: string): Promise<Record<string, number>> {
  const text = await (await request(`${s.daemon.url}/metrics`)).body.text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} ([0-9.e+]+)$`, 'gm'))) {
    const v = new RegExp(`${label}="([^"]*)"`).exec(m[1]!)?.[1] ?? '';
    out[v] = (out[v] ?? 0) + Number(m[2]);
  }
  return out;
}
