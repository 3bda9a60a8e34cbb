/**
 * What the batch workflow and its activities exchange each step: indices, remote ids, line
 * positions and small summaries. Plain JSON; inputs and outputs stay in files.
 */
import {
  type BatchOutcomeStatus,
  type InputFormat,
  type JobStatus,
  type Policy,
  type RunScope,
  type WaitReason,
} from '../../contracts';

/** Where reading the input file goes on: the next line's index and byte offset. */
export interface Cursor {
  line: number;
  offset: number;
}

/** One input line: its index, byte offset and length in the file, and its key value (per-key caps). */
export interface LineRef {
  i: number;
  o: number;
  l: number;
  k?: string;
}

/** The outcome of one input, decided by the workflow, written by the next step. */
export interface Final {
  i: number;
  s: BatchOutcomeStatus;
  /** Attempts (remote runs) and the remote job ids. */
  a: number;
  ids: string[];
  e?: string;
  et?: string;
  x?: number;
  d?: number;
  t0?: number;
  t1: number;
  /** The collected record with the output: completion segment and line. */
  c?: { seq: number; n: number };
  /** The input line, for the dead-letter file. */
  o?: number;
  l?: number;
}

/** A due retry of a finished job: `/retry` while its result is retained, else a new submission. */
export interface RetryOrder extends LineRef {
  id: string;
  /** The attempt this starts (2 for the first retry). */
  a: number;
  how: 'retry' | 'resubmit';
}

/** One step of a batch: write outcomes, submit, retry, cancel, poll, then collect completions. */
export interface StepRequest {
  run: RunScope;
  seq: number;
  endpointId: string;
  source: string;
  inputFormat: InputFormat;
  policy?: Policy;
  webhook: boolean;
  /** The batch's priority (0-9) in its endpoint's shared rate budget and among the daemon's batches; absent: 5. */
  priority?: number;
  /** The batch has input left to submit (lines or deferred lines), and is not paused or stopped. */
  more?: boolean;
  /** The batch has no price yet: read the endpoint's worker price (its workers may have started since). */
  wantPrice?: boolean;
  /** A retry-failed run: only the lines of its subset (batchKeys.subset) are read. */
  subset?: boolean;
  write: Final[];
  /** Read new lines from `from`: submit up to `room` of them, the rest (key at its cap) come back deferred. */
  read?: {
    from: Cursor;
    lines: number;
    room: number;
    keyPath?: string;
    keyLimit?: number;
    keyCounts: Record<string, number>;
  };
  /** Deferred lines the workflow found room for. */
  submit: LineRef[];
  retry: RetryOrder[];
  cancel: string[];
  poll: string[];
  /**
   * Wait up to `waitMs` for at least `min` completions. With `refillMs` (no key caps, webhooks),
   * the step goes on for that long: each COMPLETED job that arrives frees its slot, and a new
   * line is read and submitted in its place at once, without waiting for the next step.
   */
  collect: { waitMs: number; min: number; refillMs?: number };
}

/** A remote job seen finished (webhook or poll); its full record is in the step's completion segment. */
export interface Completion {
  id: string;
  r: number;
  s: JobStatus;
  e?: string;
  et?: string;
  x?: number;
  d?: number;
  n: number;
}

export interface StepResult {
  read?: { cursor: Cursor; eof: boolean };
  submitted: (LineRef & { id: string; dup?: boolean })[];
  deferred: LineRef[];
  bad: { i: number; reason: string }[];
  /** Submissions the service refused for good (400, payload too large): the input fails. */
  rejected: { i: number; error: string }[];
  retried: { i: number; id: string; how: 'retry' | 'resubmit'; refused?: boolean }[];
  cancelled: string[];
  completions: Completion[];
  /** Polled jobs the service no longer knows (ttl expired). */
  expired: string[];
  /** Polled jobs still queued or running. */
  polledRunning: string[];
  /** 429s met (the step then stops submitting). */
  rateLimited: number;
  /** USD per worker-hour, when asked for (`wantPrice`) and known. */
  pricePerHour?: number;
  /**
   * What held the step's submissions back: `rate-budget` (the endpoint's shared budget made them
   * wait, or a 429 came), `priority` (a higher-priority batch on the endpoint has input left).
   */
  held?: WaitReason[];
}
