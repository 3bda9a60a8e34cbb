/** Persistence of jobs and their undelivered stream chunks, with group commit. */
import { type StreamChunk } from '../../contracts';
import { secretsOf, type Db } from '../core/db';
import { type Secrets } from '../core/secrets';
import { type Job } from './job';

interface JobRow {
  id: string;
  endpoint_id: string;
  user_id: string;
  status: string;
  sync: number;
  input: string;
  webhook: string | null;
  policy: string;
  s3: string | null;
  submitted_at: number;
  queued_at: number;
  started_at: number | null;
  completed_at: number | null;
  ttl_deadline: number;
  retention_until: number | null;
  output: string | null;
  error: string | null;
  progress: string | null;
  worker_id: string | null;
  retries: number;
  stream_read: number;
  idempotency_key: string | null;
}

const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));
const parse = (s: string | null): unknown => (s === null ? undefined : JSON.parse(s));
const opt = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/**
 * Persistence of jobs and their undelivered stream chunks, with group commit: writes are queued
 * and committed together once per event-loop turn (one transaction instead of one per
 * transition; repeated updates of a job in one turn are written once, with its latest state).
 * Whoever acknowledges a change to a client waits for {@link persisted} first, so nothing
 * acknowledged is lost by a crash.
 */
export class JobStore {
  private readonly stmts;
  private ops: (() => void)[] = [];
  private readonly dirty = new Set<Job>();
  private scheduled = false;
  private waiters: (() => void)[] = [];
  private readonly commit: () => void;
  /** `s3Config` holds the bucket's secret key: it is stored sealed (platform/core/secrets.ts). */
  private readonly secrets: Secrets;

  constructor(private readonly db: Db) {
    this.secrets = secretsOf(db);
    this.stmts = {
      insert: db.prepare(`INSERT INTO jobs (id, endpoint_id, user_id, status, sync, input, webhook, policy, s3,
        submitted_at, queued_at, ttl_deadline, retries, stream_read, idempotency_key)
        VALUES (@id, @endpointId, @userId, @status, @sync, @input, @webhook, @policy, @s3, @submittedAt, @queuedAt, @ttlDeadline, 0, 0, @idempotencyKey)`),
      update: db.prepare(`UPDATE jobs SET status = @status, queued_at = @queuedAt, started_at = @startedAt,
        completed_at = @completedAt, ttl_deadline = @ttlDeadline, retention_until = @retentionUntil, output = @output,
        error = @error, progress = @progress, worker_id = @workerId, retries = @retries, stream_read = @streamRead WHERE id = @id`),
      delete: db.prepare('DELETE FROM jobs WHERE id = ?'),
      deleteChunks: db.prepare('DELETE FROM chunks WHERE job_id = ?'),
      deleteChunksBefore: db.prepare('DELETE FROM chunks WHERE job_id = ? AND seq < ?'),
      addChunk: db.prepare('INSERT INTO chunks (job_id, seq, body) VALUES (?, ?, ?)'),
      all: db.prepare('SELECT * FROM jobs ORDER BY queued_at'),
      chunksOf: db.prepare('SELECT seq, body FROM chunks WHERE job_id = ? ORDER BY seq'),
    };
    this.commit = db.transaction(() => {
      for (const op of this.ops) op();
    });
  }

  /** Commits every queued write now (before close, and in tests). */
  flush(): void {
    this.scheduled = false;
    const waiters = this.waiters;
    this.waiters = [];
    try {
      if (this.ops.length > 0) this.commit();
    } finally {
      this.ops = [];
      this.dirty.clear();
      for (const w of waiters) w();
    }
  }

  /** Resolves once every write queued so far is committed. */
  persisted(): Promise<void> {
    if (this.ops.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private queue(op: () => void): void {
    this.ops.push(op);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  insert(job: Job): void {
    const row = {
      id: job.id,
      endpointId: job.endpointId,
      userId: job.userId,
      status: job.status,
      sync: job.sync ? 1 : 0,
      input: JSON.stringify(job.input),
      webhook: job.webhook ?? null,
      policy: JSON.stringify(job.policy),
      s3: job.s3Config === undefined ? null : this.secrets.seal(JSON.stringify(job.s3Config)),
      submittedAt: job.submittedAt,
      queuedAt: job.queuedAt,
      ttlDeadline: job.ttlDeadline,
      idempotencyKey: job.idempotencyKey ?? null,
    };
    this.queue(() => this.stmts.insert.run(row));
  }

  /** Writes the mutable columns (never the input, which can be megabytes), as they are at commit time. */
  update(job: Job): void {
    if (this.dirty.has(job)) return;
    this.dirty.add(job);
    this.queue(() => this.writeState(job));
  }

  private writeState(job: Job): void {
    this.dirty.delete(job);
    this.stmts.update.run({
      id: job.id,
      status: job.status,
      queuedAt: job.queuedAt,
      startedAt: job.startedAt ?? null,
      completedAt: job.completedAt ?? null,
      ttlDeadline: job.ttlDeadline,
      retentionUntil: job.retentionUntil ?? null,
      output: json(job.output),
      error: json(job.error),
      progress: json(job.progress),
      workerId: job.workerId ?? null,
      retries: job.retries,
      streamRead: job.chunkSeq - job.pendingChunks.length,
    });
  }

  delete(id: string): void {
    this.queue(() => {
      this.stmts.delete.run(id);
      this.stmts.deleteChunks.run(id);
    });
  }

  addChunk(jobId: string, seq: number, chunk: StreamChunk): void {
    const body = JSON.stringify(chunk);
    this.queue(() => this.stmts.addChunk.run(jobId, seq, body));
  }

  /** Forgets chunks that were handed out (each chunk is delivered once). */
  dropDelivered(job: Job): void {
    const before = job.chunkSeq - job.pendingChunks.length;
    this.queue(() => this.stmts.deleteChunksBefore.run(job.id, before));
  }

  clearChunks(jobId: string): void {
    this.queue(() => this.stmts.deleteChunks.run(jobId));
  }

  /** Every stored job, oldest queue entry first, with its undelivered chunks. */
  loadAll(): Job[] {
    this.flush();
    return (this.stmts.all.all() as JobRow[]).map((r) => {
      const chunks = this.stmts.chunksOf.all(r.id) as { seq: number; body: string }[];
      const pending = chunks.filter((c) => c.seq >= r.stream_read);
      const last = chunks.at(-1);
      return {
        id: r.id,
        endpointId: r.endpoint_id,
        userId: r.user_id,
        status: r.status as Job['status'],
        sync: r.sync === 1,
        input: JSON.parse(r.input),
        webhook: opt(r.webhook),
        policy: JSON.parse(r.policy) as Job['policy'],
        s3Config: (r.s3 === null ? undefined : JSON.parse(this.secrets.unseal(r.s3))) as Job['s3Config'],
        submittedAt: r.submitted_at,
        queuedAt: r.queued_at,
        startedAt: opt(r.started_at),
        completedAt: opt(r.completed_at),
        ttlDeadline: r.ttl_deadline,
        retentionUntil: opt(r.retention_until),
        output: parse(r.output),
        error: parse(r.error),
        progress: parse(r.progress),
        workerId: opt(r.worker_id),
        retries: r.retries,
        idempotencyKey: opt(r.idempotency_key),
        pendingChunks: pending.map((c) => JSON.parse(c.body) as Job['pendingChunks'][number]),
        chunkSeq: last ? last.seq + 1 : r.stream_read,
      };
    });
  }
}
