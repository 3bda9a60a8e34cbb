/** The queue API of the spec: run, runsync, status, status-sync, stream, cancel, retry, purge-queue, health. */
import {
  IDEMPOTENCY_HEADERS,
  JobSubmission,
  LIMITS,
  TtlMs,
  isTerminal,
  type RateLimitedOperation,
} from '../../contracts';
import { BadRequestError } from '../core/errors';
import { toRecord, type Job } from '../jobs/job';
import { authenticate, ownedEndpoint } from './http/auth';
import { parseJson, readBody, validate } from './http/body';
import { sendJson } from './http/respond';
import { type Ctx, type Router } from './http/router';
import { durableReply } from './http/durable';
import { type PlatformServices } from '../services';

/** Answer header of a `/run` or `/runsync` that repeated an `Idempotency-Key`: no job was created. */
const REPLAYED = { [IDEMPOTENCY_HEADERS.replayed]: 'true' };

/**
 * The `Idempotency-Key` header of `/run` and `/runsync` (an extension of this platform: the
 * service ignores it); 400 when empty or over {@link LIMITS.idempotencyKeyMaxLength} characters.
 */
function idempotencyKey(ctx: Ctx): string | undefined {
  const raw = ctx.req.headers[IDEMPOTENCY_HEADERS.key];
  if (raw === undefined) return undefined;
  const key = Array.isArray(raw) ? raw.join(', ') : raw;
  if (key.length === 0 || key.length > LIMITS.idempotencyKeyMaxLength) {
    throw new BadRequestError(
      `Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyMaxLength} characters, got ${key.length}`,
      { field: 'Idempotency-Key' },
    );
  }
  return key;
}

/** Sends a JSON answer once the change it acknowledges is committed (see {@link durableReply}). */
type Reply = ReturnType<typeof durableReply>;

/** Auth, endpoint ownership and the rate limit of `op`, in the order the service checks them. */
function admit(s: PlatformServices, ctx: Ctx, op: RateLimitedOperation | null) {
  const user = authenticate(s, ctx.req);
  const endpoint = ownedEndpoint(s, user, ctx.params.endpointId);
  if (op) ctx.onDone(s.limiter.admit(user.id, endpoint.id, op, s.pool.runningWorkers(endpoint.id)));
  return { user, endpoint };
}

/** The job the path's `:jobId` names on the endpoint (a 404 when the platform no longer holds it). */
const jobOf = (s: PlatformServices, ctx: Ctx, endpointId: string): Job =>
  s.engine.jobs.get(endpointId, ctx.params.jobId ?? '');

/**
 * A new job, or (`replayed`) the job an earlier request with the same `Idempotency-Key` created
 * on this endpoint for this user, while the platform still holds it.
 */
async function submit(s: PlatformServices, ctx: Ctx, sync: boolean): Promise<{ job: Job; replayed: boolean }> {
  const { user, endpoint } = admit(s, ctx, sync ? 'runsync' : 'run');
  const key = idempotencyKey(ctx);
  const limit = sync ? LIMITS.runsyncPayloadBytes : LIMITS.runPayloadBytes;
  const body = validate(JobSubmission, parseJson(await readBody(ctx.req, limit, sync ? '/runsync' : '/run')));
  const first = key === undefined ? undefined : s.engine.jobs.byIdempotencyKey(user.id, endpoint.id, key);
  if (first) return { job: first, replayed: true };
  return { job: s.engine.submit(endpoint.id, user.id, body, sync, key), replayed: false };
}

/** Waits until the job is terminal (or gone) or `ms` passed. */
async function awaitTerminal(s: PlatformServices, job: Job, ms: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + ms;
  while (!s.engine.jobs.isDone(job.id) && !signal.aborted && Date.now() < deadline) {
    await s.engine.jobs.watch(job.id, deadline - Date.now(), signal);
  }
}

/** The `wait` query parameter of a sync wait, in milliseconds (400 outside the spec's range). */
function waitParam(ctx: Ctx): number {
  const raw = ctx.query.get('wait');
  if (raw === null) return LIMITS.runsyncWaitDefaultMs;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < LIMITS.runsyncWaitMinMs || n > LIMITS.runsyncWaitMaxMs) {
    throw new BadRequestError(
      `wait must be an integer number of milliseconds from ${LIMITS.runsyncWaitMinMs} to ${LIMITS.runsyncWaitMaxMs}`,
      { field: 'wait' },
    );
  }
  return n;
}

/** The answer of a sync wait: the whole record once finished, else id and status (200 either way). */
function syncAnswer(
  s: PlatformServices,
  reply: Reply,
  ctx: Ctx,
  job: Job,
  headers?: Record<string, string>,
): Promise<void> | void {
  const current = s.engine.jobs.find(job.id);
  if (!current) return sendJson(ctx.res, 404, { error: `job ${job.id} not found (its ttl expired)` }, headers);
  const body = isTerminal(current.status) ? toRecord(current) : { id: current.id, status: current.status };
  return reply(ctx.res, 200, body, headers);
}

/** `/run` and `/runsync`: a new job (or the one its `Idempotency-Key` already created). */
function submitRoutes(router: Router, s: PlatformServices, reply: Reply): void {
  router.on('POST', '/v2/:endpointId/run', async (ctx) => {
    const { job, replayed } = await submit(s, ctx, false);
    // Accepted into the queue: a waiting worker may already hold it, but the answer of /run is IN_QUEUE.
    // A replay answers the first job as it is now.
    await reply(
      ctx.res,
      200,
      { id: job.id, status: replayed ? job.status : 'IN_QUEUE' },
      replayed ? REPLAYED : undefined,
    );
  });

  router.on('POST', '/v2/:endpointId/runsync', async (ctx) => {
    const wait = waitParam(ctx);
    const { job, replayed } = await submit(s, ctx, true);
    await awaitTerminal(s, job, wait, ctx.signal);
    await syncAnswer(s, reply, ctx, job, replayed ? REPLAYED : undefined);
  });
}

/** `/status`, `/status-sync` and `/stream`: read one job, at once or after a wait. */
function readRoutes(router: Router, s: PlatformServices, reply: Reply): void {
  router.on(['GET', 'POST'], '/v2/:endpointId/status/:jobId', async (ctx) => {
    const { endpoint } = admit(s, ctx, 'status');
    const job = jobOf(s, ctx, endpoint.id);
    const ttl = ctx.query.get('ttl');
    if (ttl !== null) s.engine.setTtl(job, validate(TtlMs, Number(ttl), 'query'));
    await reply(ctx.res, 200, toRecord(job));
  });

  router.on(['GET', 'POST'], '/v2/:endpointId/status-sync/:jobId', async (ctx) => {
    const { endpoint } = admit(s, ctx, 'status');
    const wait = waitParam(ctx);
    const job = jobOf(s, ctx, endpoint.id);
    await awaitTerminal(s, job, wait, ctx.signal);
    await syncAnswer(s, reply, ctx, job);
  });

  router.on(['GET', 'POST'], '/v2/:endpointId/stream/:jobId', async (ctx) => {
    const { endpoint } = admit(s, ctx, 'stream');
    const job = jobOf(s, ctx, endpoint.id);
    let chunks = s.engine.drainStream(job);
    if (chunks.length === 0 && !isTerminal(job.status)) {
      await s.engine.jobs.watch(job.id, s.streamHoldMs, ctx.signal);
      const current = jobOf(s, ctx, endpoint.id);
      chunks = s.engine.drainStream(current);
    }
    const current = jobOf(s, ctx, endpoint.id);
    await reply(ctx.res, 200, { id: current.id, status: current.status, stream: chunks });
  });
}

/** `/cancel` and `/retry` of one job, `/purge-queue` and `/health` of the endpoint. */
function controlRoutes(router: Router, s: PlatformServices, reply: Reply): void {
  router.on('POST', '/v2/:endpointId/cancel/:jobId', async (ctx) => {
    const { endpoint } = admit(s, ctx, 'cancel');
    const job = s.engine.cancel(jobOf(s, ctx, endpoint.id));
    await reply(ctx.res, 200, { id: job.id, status: job.status });
  });

  router.on('POST', '/v2/:endpointId/retry/:jobId', async (ctx) => {
    // The spec lists no rate limit for /retry; it shares /run's, since it queues work.
    const { endpoint } = admit(s, ctx, 'run');
    const job = s.engine.retry(jobOf(s, ctx, endpoint.id));
    // Re-queued; a waiting worker may take it before this answer is written (same as /run).
    await reply(ctx.res, 200, { id: job.id, status: 'IN_QUEUE' });
  });

  router.on('POST', '/v2/:endpointId/purge-queue', async (ctx) => {
    const { endpoint } = admit(s, ctx, 'purge-queue');
    await reply(ctx.res, 200, { removed: s.engine.purge(endpoint.id), status: 'completed' });
  });

  router.on('GET', '/v2/:endpointId/health', (ctx) => {
    const { endpoint } = admit(s, ctx, null);
    sendJson(ctx.res, 200, { jobs: s.engine.jobs.counts(endpoint.id), workers: s.pool.workerCounts(endpoint.id) });
  });
}

/** The eight queue operations of the spec, plus `status-sync` which the official clients use. */
export function queueRoutes(router: Router, s: PlatformServices): void {
  const reply = durableReply(s);
  submitRoutes(router, s, reply);
  readRoutes(router, s, reply);
  controlRoutes(router, s, reply);
}
