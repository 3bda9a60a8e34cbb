import { type JobDoneBody, type TakenJob } from '../contracts/worker-protocol';
import { raceAbort } from './async';
import { errorMessage } from './errors';
import { type JobSink, doneBody } from './delivery';
import { log } from './log';
import { type Handler, type Job } from './types';

export interface ExecuteOptions {
  returnAggregateStream: boolean;
}

/** How a job ended: a body to post, or stopped (nothing is posted). */
export type JobOutcome = { kind: 'done'; body: JobDoneBody; isStream: boolean } | { kind: 'stopped' };

const isObject = (v: unknown): v is Record<PropertyKey, unknown> => typeof v === 'object' && v !== null;

/** A result is streamed when it is an async iterable or a (sync) generator-like iterator. */
export function isStreamResult(v: unknown): v is AsyncIterable<unknown> | Iterator<unknown> {
  if (!isObject(v) || Array.isArray(v)) return false;
  if (typeof v[Symbol.asyncIterator] === 'function') return true;
  return typeof v[Symbol.iterator] === 'function' && typeof v.next === 'function';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (!isObject(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** The job-done body for a returned value; handles `refresh_worker`. */
export function resultBody(result: unknown): JobDoneBody {
  if (isPlainObject(result) && 'refresh_worker' in result) {
    const { refresh_worker: refresh, ...rest } = result;
    return refresh ? { output: rest, stopPod: true } : { output: rest };
  }
  return { output: result === undefined ? null : result };
}

function toAsyncIterator(v: AsyncIterable<unknown> | Iterator<unknown>): AsyncIterator<unknown> {
  if (Symbol.asyncIterator in v) return v[Symbol.asyncIterator]();
  const it = v;
  return {
    next: () => Promise.resolve(it.next()),
    return: (value?: unknown) => Promise.resolve(it.return ? it.return(value) : { done: true as const, value }),
  };
}

/** Closes an iterator without waiting for it, swallowing its errors. */
function closeQuietly(it: AsyncIterator<unknown>): void {
  if (!it.return) return;
  Promise.resolve()
    .then(() => it.return?.())
    .then(undefined, (err: unknown) => log('debug', 'iterator close failed', { error: errorMessage(err) }));
}

async function streamOut(
  stream: AsyncIterable<unknown> | Iterator<unknown>,
  jobId: string,
  signal: AbortSignal,
  sink: JobSink,
  opts: ExecuteOptions,
): Promise<JobOutcome> {
  const it = toAsyncIterator(stream);
  const chunks: unknown[] = [];
  try {
    for (;;) {
      const step = await raceAbort(it.next(), signal);
      if (step.aborted) {
        closeQuietly(it);
        return { kind: 'stopped' };
      }
      if (step.value.done) break;
      if (signal.aborted) return { kind: 'stopped' };
      await sink.chunk(jobId, step.value.value);
      if (opts.returnAggregateStream) chunks.push(step.value.value);
    }
  } catch (err) {
    closeQuietly(it);
    throw err;
  }
  return { kind: 'done', body: { output: chunks }, isStream: true };
}

/**
 * Runs one job to the end and posts its result through `sink`. Never rejects. When `controller`
 * aborts, the handler is abandoned (its signal tells it to stop) and nothing more is posted.
 */
export async function executeJob(
  raw: TakenJob,
  controller: AbortController,
  handler: Handler<unknown>,
  sink: JobSink,
  opts: ExecuteOptions,
): Promise<void> {
  const { signal } = controller;
  const started = Date.now();
  let finished = false;
  let progressChain: Promise<void> = Promise.resolve();
  const job: Job<unknown> = {
    id: raw.id,
    input: raw.input,
    webhook: raw.webhook,
    policy: raw.policy,
    s3Config: raw.s3Config,
    signal,
    raw,
    progress(output: unknown): Promise<void> {
      if (finished || signal.aborted) return Promise.resolve();
      progressChain = progressChain.then(() => sink.progress(raw.id, output)).then(undefined, () => undefined);
      return progressChain;
    },
  };

  // One info line per job (its end, below): a line at the start too cost a short job's worker ~5 % of its CPU.
  log('debug', 'job started', { jobId: raw.id });
  let outcome: JobOutcome;
  try {
    const ran = await raceAbort(
      Promise.resolve().then(() => handler(job)),
      signal,
    );
    if (ran.aborted) outcome = { kind: 'stopped' };
    else if (isStreamResult(ran.value)) outcome = await streamOut(ran.value, raw.id, signal, sink, opts);
    else outcome = { kind: 'done', body: resultBody(ran.value), isStream: false };
  } catch (err) {
    outcome = signal.aborted
      ? { kind: 'stopped' }
      : { kind: 'done', body: { error: errorMessage(err) }, isStream: false };
    if (!signal.aborted) log('warn', 'handler failed', { jobId: raw.id, error: errorMessage(err) });
  }
  finished = true;
  await progressChain;

  const ms = Date.now() - started;
  if (outcome.kind === 'stopped' || signal.aborted) {
    log('info', 'job stopped, no result sent', { jobId: raw.id, ms, reason: errorMessage(signal.reason) });
    return;
  }
  const { body, payload } = doneBody(outcome.body);
  if (body !== outcome.body) log('warn', 'result not serializable, reporting an error', { jobId: raw.id });
  const delivered = await sink.done(raw.id, body, payload, outcome.isStream);
  log('info', 'job finished', { jobId: raw.id, ms, failed: body.error !== undefined, delivered });
}
