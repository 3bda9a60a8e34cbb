/** The worker protocol of the stock RunPod SDK: job-take, job-done, job-stream, job-stop, ping. */
import { JobDoneBody, JobStreamBody, type StreamChunk } from '../../contracts';
import { JsonTooDeepError, NotFoundError, UnauthorizedError } from '../core/errors';
import { toTakenJob, type Job } from '../jobs/job';
import { type WorkerPod } from '../pods/pod';
import { credential } from './http/auth';
import { parseJson, readBody, validate } from './http/body';
import { sendEmpty, sendJson } from './http/respond';
import { type Ctx, type Router } from './http/router';
import { durableReply } from './http/durable';
import { type PlatformServices } from '../services';
import { sameSecret } from '../core/secrets';

/** A JSON answer sent once the change it acknowledges is committed. */
type Reply = ReturnType<typeof durableReply>;

/** Largest job-done or job-stream body a worker may send (results over it are refused with 400). */
export const WORKER_BODY_LIMIT = 64 * 1024 * 1024;

/** The pod a worker request names, authenticated by the pod's own key; 404 or 401 otherwise. */
function podOf(s: PlatformServices, ctx: Ctx): WorkerPod {
  const pod = s.pool.pod(ctx.params.podId ?? '');
  if (!pod || pod.endpointId !== ctx.params.endpointId)
    throw new NotFoundError(`worker ${ctx.params.podId ?? ''} not found`);
  if (!sameSecret(credential(ctx.req) ?? '', pod.token)) throw new UnauthorizedError('invalid worker key');
  return pod;
}

/** job-take (one job) and job-take-batch (`batch_size` at most 100): a long poll for queued jobs. */
async function take(s: PlatformServices, ctx: Ctx, batch: boolean): Promise<void> {
  const pod = podOf(s, ctx);
  const max = batch ? Math.max(1, Math.min(100, Number(ctx.query.get('batch_size')) || 1)) : 1;
  let alive = true;
  ctx.onDone(() => (alive = false));
  const jobs = await s.pool.take(pod, max, s.takeWaitMs, () => alive && !ctx.res.destroyed);
  if (jobs.length === 0) return sendEmpty(ctx.res, 204);
  // The hand-over is committed before the worker hears of it: a crash cannot make it run twice.
  await s.engine.persisted();
  if (!alive || ctx.res.destroyed) {
    // The worker hung up while the hand-over happened: the jobs go back to the queue.
    s.pool.giveBack(pod, jobs);
    return;
  }
  sendJson(ctx.res, 200, batch ? jobs.map(toTakenJob) : toTakenJob(jobs[0]!));
}

/**
 * A worker's body parsed as JSON. One nested too deeply (an output the platform cannot store or
 * hand on) fails the job with an error saying so, and the worker hears the 400.
 */
async function workerBody(
  s: PlatformServices,
  ctx: Ctx,
  pod: WorkerPod,
  what: string,
  allowEmpty: boolean,
): Promise<{ body: unknown; job: Job }> {
  const raw = await readBody(ctx.req, WORKER_BODY_LIMIT, what);
  const job = s.engine.jobs.get(pod.endpointId, ctx.params.jobId ?? '');
  try {
    return { body: parseJson(raw, { allowEmpty }), job };
  } catch (err) {
    if (err instanceof JsonTooDeepError)
      s.engine.refuseOutput(pod.id, job, `the worker's ${what} body was refused: ${err.message}`);
    throw err;
  }
}

/** job-done: progress (IN_PROGRESS) or the job's end, answered once committed. */
async function jobDone(s: PlatformServices, reply: Reply, ctx: Ctx): Promise<void> {
  const pod = podOf(s, ctx);
  const { body: raw, job } = await workerBody(s, ctx, pod, 'job-done', true);
  const body = validate(JobDoneBody, raw ?? {});
  if (body.status === 'IN_PROGRESS') {
    s.engine.progress(pod.id, job, body.output);
    return reply(ctx.res, 200, {});
  }
  const result: { output?: unknown; error?: unknown } = {};
  if ('output' in body) result.output = body.output;
  if ('error' in body) result.error = body.error;
  const accepted = s.engine.complete(pod.id, job, result);
  if (body.stopPod === true) s.pool.refresh(pod);
  await reply(ctx.res, 200, accepted ? {} : { ignored: `job is ${job.status}` });
}

/** job-stream: one chunk of a streaming job's output, answered once committed. */
async function jobStream(s: PlatformServices, reply: Reply, ctx: Ctx): Promise<void> {
  const pod = podOf(s, ctx);
  const { body: raw, job } = await workerBody(s, ctx, pod, 'job-stream', false);
  const body = validate(JobStreamBody, raw);
  s.engine.appendChunk(pod.id, job, body as StreamChunk);
  await reply(ctx.res, 200, {});
}

/**
 * The worker protocol of the stock RunPod worker SDK: job-take (long-poll), job-done,
 * job-stream, job-stop (long-poll) and ping. Workers authenticate with their pod's own key,
 * sent bare.
 */
export function workerRoutes(router: Router, s: PlatformServices): void {
  const reply = durableReply(s);
  router.on('GET', '/v2/:endpointId/job-take/:podId', (ctx) => take(s, ctx, false));
  router.on('GET', '/v2/:endpointId/job-take-batch/:podId', (ctx) => take(s, ctx, true));
  router.on('POST', '/v2/:endpointId/job-done/:podId/:jobId', (ctx) => jobDone(s, reply, ctx));
  router.on('POST', '/v2/:endpointId/job-stream/:podId/:jobId', (ctx) => jobStream(s, reply, ctx));

  router.on('GET', '/v2/:endpointId/job-stop/:podId', async (ctx) => {
    const pod = podOf(s, ctx);
    const ids = await s.pool.stopsFor(pod, s.takeWaitMs, ctx.signal);
    if (ids.length === 0) return sendEmpty(ctx.res, 204);
    sendJson(ctx.res, 200, { jobsToStop: ids });
  });

  router.on('GET', '/v2/:endpointId/ping/:podId', (ctx) => {
    const pod = podOf(s, ctx);
    // The stock SDK lists the jobs it runs in `job_id` (comma-separated) and leaves it out when idle.
    const running = (ctx.query.get('job_id') ?? '').split(',').filter((x) => x.length > 0);
    s.pool.ping(pod, ctx.query.get('status') === 'unhealthy', running);
    sendJson(ctx.res, 200, {});
  });
}
