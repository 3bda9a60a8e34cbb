import { TakenJob } from '../contracts/worker-protocol';
import { raceAbort, sleep } from './async';
import { type WorkerConfig, appendQuery } from './config';
import { type JobSink, doneBody } from './delivery';
import { RequestTimeoutError, ShutdownError, describeError, formatIssues } from './errors';
import { type ExecuteOptions, executeJob } from './execute';
import { log } from './log';
import { type Transport, parseJson } from './transport';
import { type Handler } from './types';

/** Client timeout of a take long-poll (the server answers within ~30 s). */
export const TAKE_TIMEOUT_MS = 90_000;

interface RunningJob {
  controller: AbortController;
  done: Promise<void>;
}

/** Takes jobs and runs up to `concurrency` of them at once. */
export class Runner {
  private readonly running = new Map<string, RunningJob>();
  /** The take URL when idle and when a job runs (`job_in_progress` 0 or 1), built once. */
  private readonly takeUrls: readonly [string, string];

  constructor(
    private readonly cfg: WorkerConfig,
    private readonly transport: Transport,
    private readonly sink: JobSink,
    private readonly handler: Handler<unknown>,
    private readonly concurrency: number,
    private readonly execOpts: ExecuteOptions,
  ) {
    this.takeUrls = [
      appendQuery(cfg.takeUrl, { job_in_progress: '0' }),
      appendQuery(cfg.takeUrl, { job_in_progress: '1' }),
    ];
  }

  /** Ids of the jobs running now. */
  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** Aborts the named running jobs (unknown ids are ignored); returns the ids aborted. */
  stop(ids: readonly string[], reason: Error): string[] {
    const hit = ids.filter((id) => this.running.has(id));
    for (const id of hit) this.running.get(id)?.controller.abort(reason);
    return hit;
  }

  /** Aborts every running job. */
  abortAll(reason: Error): void {
    for (const job of this.running.values()) job.controller.abort(reason);
  }

  /** Polls job-take until `stopping` aborts (a pending long-poll is cancelled). */
  async takeLoop(stopping: AbortSignal): Promise<void> {
    let failures = 0;
    while (!stopping.aborted) {
      if (this.running.size >= this.concurrency) {
        await raceAbort(Promise.race([...this.running.values()].map((j) => j.done)), stopping);
        continue;
      }
      const url = this.takeUrls[this.running.size > 0 ? 1 : 0];
      let status: number;
      let text: string;
      try {
        ({ status, text } = await this.transport.send('GET', url, { signal: stopping, timeoutMs: TAKE_TIMEOUT_MS }));
      } catch (err) {
        if (stopping.aborted) break;
        if (err instanceof RequestTimeoutError) continue;
        if (failures++ % 30 === 0) log('warn', 'job-take failed', { error: describeError(err), failures });
        await sleep(1_000, stopping);
        continue;
      }
      if (status === 204 || status === 400) {
        failures = 0;
        continue;
      }
      if (status === 429) {
        log('debug', 'job-take throttled, backing off 5 s');
        await sleep(5_000, stopping);
        continue;
      }
      if (status >= 400) {
        if (failures++ % 30 === 0) log('warn', 'job-take failed', { status, body: text.slice(0, 200), failures });
        await sleep(1_000, stopping);
        continue;
      }
      failures = 0;
      this.accept(parseJson(text));
    }
  }

  /** Starts a job from a job-take answer, or explains why not. */
  private accept(body: unknown): void {
    if (body === undefined) return;
    const parsed = TakenJob.safeParse(body);
    if (!parsed.success) {
      const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
      const noInput = typeof body === 'object' && body !== null && (body as { input?: unknown }).input === undefined;
      const error =
        noInput && typeof id === 'string'
          ? 'job has no input'
          : `invalid job: ${formatIssues(parsed.error.issues, 'job')}`;
      log('error', 'job-take returned an invalid job', { jobId: id, error });
      // With an id the job can be failed rather than left to time out.
      if (typeof id === 'string' && !this.running.has(id)) {
        const done = doneBody({ error });
        void this.sink.done(id, done.body, done.payload, false); // never rejects
      }
      return;
    }
    const raw = parsed.data;
    if (this.running.has(raw.id)) {
      log('warn', 'job already running, duplicate ignored', { jobId: raw.id });
      return;
    }
    const controller = new AbortController();
    const done = executeJob(raw, controller, this.handler, this.sink, this.execOpts)
      .catch((err: unknown) => log('error', 'job runner failed', { jobId: raw.id, error: describeError(err) }))
      .finally(() => this.running.delete(raw.id));
    this.running.set(raw.id, { controller, done });
  }

  /**
   * Waits up to `graceMs` for running jobs to finish; then aborts the rest (they get no job-done).
   * Returns whether every job finished on its own.
   */
  async drain(graceMs: number): Promise<boolean> {
    if (this.running.size === 0) return true;
    log('info', 'waiting for running jobs', { jobIds: this.runningIds(), graceMs });
    const all = (): Promise<unknown> => Promise.all([...this.running.values()].map((j) => j.done));
    const timer = new AbortController();
    const finished = await Promise.race([
      all().then(() => true),
      sleep(Math.max(0, graceMs), timer.signal).then(() => false),
    ]);
    timer.abort();
    if (finished) return true;
    log('warn', 'grace period over, abandoning running jobs', { jobIds: this.runningIds() });
    this.abortAll(new ShutdownError('worker shut down before the job finished'));
    const settle = new AbortController();
    await Promise.race([all(), sleep(1_000, settle.signal)]);
    settle.abort();
    return false;
  }
}
