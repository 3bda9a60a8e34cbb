/** Helpers of the fault tests: a real stack whose platform runs a fault mode, an echo endpoint, and the platform's own count of jobs per input. */
import pino from 'pino';
import { request } from 'undici';
import { type FaultsInput } from '../../platform';
import { orchestratorStack } from '../helpers/orchestrator';
import { eventually, freePort } from '../helpers/platform';

export type Stack = Awaited<ReturnType<typeof orchestratorStack>>;
/** A {@link Stack} whose platform's log is counted ({@link faultyStack}). */
export type FaultyStack = Stack & { log: PlatformLog };

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
 * Temporal + a platform in fault mode + an in-process daemon; `dispose()` stops them all. `log`
 * counts what the platform logged, so a test can tell the faults did happen.
 */
export async function faultyStack(c: FaultCase): Promise<FaultyStack> {
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
    ...(c.unreachable ? { daemon: async () => ({ SLUICE_PUBLIC_URL: `http://127.0.0.1:${await freePort()}` }) } : {}),
  });
  return Object.assign(s, { log });
}

/** The example echo endpoint with `workers` workers kept up (waited for). */
export async function echoEndpoint(s: Stack, workers = 4): Promise<string> {
  const echo = s.platform.registry.saveEndpoint({
    ...s.platform.examples.echo!,
    workersMin: workers,
    workersMax: workers,
  });
  await eventually(() => s.platform.pool.workerCounts(echo.id).idle >= workers, 60_000);
  return echo.id;
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
