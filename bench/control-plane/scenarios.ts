/**
 * The two control-plane scenarios, each measured on a fresh endpoint of a running platform:
 *
 * - `scale-up`: an endpoint with one busy worker and a queue; a GraphQL `saveEndpoint` raises
 *   workersMax from 1 to N. Measured from sending the mutation to each new worker taking its first
 *   job (the job's start time in the platform).
 * - `burst`: an endpoint with no worker; N×2 jobs are submitted at once. Measured from the first
 *   submission to each worker taking its first job.
 */
import { request } from 'undici';
import { type WorkerPod } from '../../platform/pods/pod';
import { type Platform } from '../../platform';

/** One measurement: ms from the trigger until the first and until the last new worker took a job. */
export interface Sample {
  firstMs: number;
  allMs: number;
  /** Duration of the trigger itself (the GraphQL mutation, or submitting the burst). */
  triggerMs: number;
  /** Where the time went, averaged over the new workers (ms). */
  phases: Phases;
}

/** trigger → scaler starts the pod → cold start over, process launched → process asks for a job → takes one. */
export interface Phases {
  spawn: number;
  cold: number;
  boot: number;
  take: number;
}

const JOB_MS = 3000;

async function post(p: Platform, path: string, body: unknown): Promise<any> {
  const res = await request(`${p.url}${path}`, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${p.apiKey}` },
  });
  const json = (await res.body.json()) as any;
  if (res.statusCode !== 200 || json.errors)
    throw new Error(`${path} answered ${res.statusCode}: ${JSON.stringify(json)}`);
  return json;
}

const gql = (p: Platform, query: string) => post(p, '/graphql', { query });

async function until(what: string, fn: () => boolean, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Start time of each worker's first job, from the platform's job records. */
function firstStarts(p: Platform, endpointId: string): Map<string, number> {
  const first = new Map<string, number>();
  for (const j of p.engine.jobs.ofEndpoint(endpointId)) {
    if (j.workerId === undefined || j.startedAt === undefined) continue;
    first.set(j.workerId, Math.min(first.get(j.workerId) ?? Infinity, j.startedAt));
  }
  return first;
}

/** Mean phase durations of the workers `ids` (all of which took a job). */
function phases(p: Platform, endpointId: string, ids: string[], t0: number): Phases {
  const first = firstStarts(p, endpointId);
  const mean = (f: (pod: WorkerPod) => number): number => ids.reduce((n, id) => n + f(p.pool.pod(id)!), 0) / ids.length;
  return {
    spawn: mean((w) => w.createdAt - t0),
    cold: mean((w) => w.startedAt! - w.createdAt),
    boot: mean((w) => w.readyAt! - w.startedAt!),
    take: mean((w) => first.get(w.id)! - w.readyAt!),
  };
}

async function newEndpoint(p: Platform, templateId: string, n: string, fields: string): Promise<string> {
  const r = await gql(
    p,
    `mutation { saveEndpoint(input: { name: "${n}", gpuIds: "AMPERE_16", templateId: "${templateId}", scalerType: "REQUEST_COUNT", scalerValue: 1, idleTimeout: 60, ${fields} }) { id } }`,
  );
  return r.data.saveEndpoint.id as string;
}

/** Stops the scenario's work: queued jobs purged, running ones cancelled, endpoint deleted. */
async function cleanUp(p: Platform, endpointId: string): Promise<void> {
  await post(p, `/v2/${endpointId}/purge-queue`, {});
  for (const j of p.engine.jobs.ofEndpoint(endpointId)) if (j.status === 'IN_PROGRESS') p.engine.cancel(j);
  await gql(p, `mutation { saveEndpoint(input: { id: "${endpointId}", workersMin: 0, workersMax: 0 }) { id } }`);
  await gql(p, `mutation { deleteEndpoint(id: "${endpointId}") }`);
  await until('the workers to stop', () => p.pool.podsOf(endpointId).every((x) => x.phase === 'exited'));
}

/** workersMax 1 → `workers` through GraphQL, with one busy worker and a queue waiting. */
export async function scaleUp(
  p: Platform,
  templateId: string,
  workers: number,
  flashBoot: boolean,
  rep: number,
): Promise<Sample> {
  const id = await newEndpoint(
    p,
    templateId,
    `scale-${rep}`,
    `workersMin: 1, workersMax: 1${flashBoot ? ', flashBootType: FLASHBOOT' : ''}`,
  );
  await until('the first worker', () => p.pool.podsOf(id).some((x) => x.phase === 'ready'));
  for (let i = 0; i < workers * 2; i++) await post(p, `/v2/${id}/run`, { input: { ms: JOB_MS } });
  await until('the first job to run', () => firstStarts(p, id).size === 1);
  const old = new Set(firstStarts(p, id).keys());
  const t0 = Date.now();
  await gql(p, `mutation { saveEndpoint(input: { id: "${id}", workersMax: ${workers} }) { id } }`);
  const triggerMs = Date.now() - t0;
  await until('the new workers to take jobs', () => firstStarts(p, id).size === workers);
  const fresh = [...firstStarts(p, id)].filter(([w]) => !old.has(w));
  const starts = fresh.map(([, t]) => t - t0);
  const breakdown = phases(
    p,
    id,
    fresh.map(([w]) => w),
    t0,
  );
  await cleanUp(p, id);
  return { firstMs: Math.min(...starts), allMs: Math.max(...starts), triggerMs, phases: breakdown };
}

/** A burst of `workers × 2` jobs on an endpoint without workers (workersMax = `workers`). */
export async function burst(
  p: Platform,
  templateId: string,
  workers: number,
  flashBoot: boolean,
  rep: number,
): Promise<Sample> {
  const id = await newEndpoint(
    p,
    templateId,
    `burst-${rep}`,
    `workersMin: 0, workersMax: ${workers}${flashBoot ? ', flashBootType: FLASHBOOT' : ''}`,
  );
  const t0 = Date.now();
  await Promise.all(Array.from({ length: workers * 2 }, () => post(p, `/v2/${id}/run`, { input: { ms: JOB_MS } })));
  const triggerMs = Date.now() - t0;
  await until('the pool to scale up', () => firstStarts(p, id).size === workers);
  const starts = [...firstStarts(p, id).values()].map((t) => t - t0);
  const extra = p.pool.podsOf(id).length - workers;
  if (extra > 0) throw new Error(`the pool started ${extra} workers beyond workersMax`);
  const breakdown = phases(p, id, [...firstStarts(p, id).keys()], t0);
  await cleanUp(p, id);
  return { firstMs: Math.min(...starts), allMs: Math.max(...starts), triggerMs, phases: breakdown };
}
