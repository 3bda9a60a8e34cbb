/**
 * Every limit, default and duration of the interface spec, in one place.
 * Durations are milliseconds unless the name says otherwise.
 */
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const MB = 1024 * 1024;

export const LIMITS = {
  /** Body size of `/run`. */
  runPayloadBytes: 10 * MB,
  /** Body size of `/runsync`. */
  runsyncPayloadBytes: 20 * MB,
  /** One stream chunk; larger output is split over several chunks. */
  streamChunkBytes: 1 * MB,
  runsyncWaitMinMs: 1 * SECOND,
  runsyncWaitMaxMs: 300 * SECOND,
  runsyncWaitDefaultMs: 90 * SECOND,
  /** Result retention after completion of a `/run` job. */
  retentionAsyncMs: 30 * MINUTE,
  /** Result retention after completion of a `/runsync` job. */
  retentionSyncMs: 1 * MINUTE,
  executionTimeoutDefaultMs: 600_000,
  executionTimeoutMinMs: 5 * SECOND,
  executionTimeoutMaxMs: 7 * DAY,
  ttlDefaultMs: 86_400_000,
  ttlMinMs: 10 * SECOND,
  ttlMaxMs: 7 * DAY,
  podNameMaxLength: 191,
  /** Webhook: first call plus this many retries, this far apart. */
  webhookRetries: 2,
  webhookRetryDelayMs: 10 * SECOND,
  /**
   * Deepest nesting of arrays and objects in any JSON body the platform accepts (a scalar at the
   * top is depth 0, `{}` is 1, `{"input": {}}` is 2). Deep enough for any real payload, and well
   * under what every party must parse or write again: CPython's `json` (the official Python client
   * and worker SDK) gives up near 1000 levels, V8's `JSON.stringify` a few thousand.
   */
  jsonDepth: 256,
  /**
   * Over a size limit, the platform reads and discards up to this many more bytes of the body
   * before answering, so the client (which sends its whole body before reading) gets the 400
   * instead of a broken pipe. Larger bodies are answered at once and the connection closed.
   */
  overLimitDrainBytes: 64 * MB,
  /** How long the platform keeps discarding an over-limit body before it answers and closes. */
  overLimitDrainMs: 10 * SECOND,
  /** Longest `Idempotency-Key` header of `/run` and `/runsync`, in characters. */
  idempotencyKeyMaxLength: 255,
  /**
   * Largest webhook body the daemon reads: the spec's largest payload (`/runsync`, 20 MB) plus a
   * 4 MB margin for the record around the output. Larger bodies are refused with 413 unread (the
   * job's outcome is then found by its `/status` poll).
   */
  webhookBodyBytes: 24 * MB,
} as const;

/** Queue operations that carry a rate limit (spec: "Rate limits"). */
export type RateLimitedOperation =
  'runsync' | 'run' | 'status' | 'stream' | 'cancel' | 'purge-queue' | 'compat' | 'requests';

/** Base limits per user, endpoint and operation: requests per 10 s window, and concurrent requests. */
export const RATE_LIMITS: Record<RateLimitedOperation, { perWindow: number; concurrent: number | null }> = {
  runsync: { perWindow: 2000, concurrent: 400 },
  run: { perWindow: 1000, concurrent: 200 },
  status: { perWindow: 2000, concurrent: 400 },
  stream: { perWindow: 2000, concurrent: 400 },
  cancel: { perWindow: 100, concurrent: 20 },
  'purge-queue': { perWindow: 2, concurrent: null },
  compat: { perWindow: 2000, concurrent: 400 },
  requests: { perWindow: 10, concurrent: 2 },
};
export const RATE_WINDOW_MS = 10 * SECOND;

/** The cost cap's rule, for a batch and a pipeline alike (and a pipeline step's rounds): spend (USD) has reached it. */
export const costCapReached = (maxCost: number | undefined, spend: number): boolean =>
  maxCost !== undefined && spend >= maxCost;
