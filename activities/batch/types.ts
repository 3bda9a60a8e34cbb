/**
 * What the batch workflow and its activities exchange each step: indices, remote ids, line
 * positions and small summaries. Plain JSON; inputs and outputs stay in files.
 *
 * Why the keys are one or two letters: every step's request and result is recorded in the batch's
 * history (activity input and result payloads), and so is the ledger the workflow carries across
 * continue-as-new (workflows/batch/ledger.ts), which holds these shapes per job in flight. A batch
 * aims at about 0.01 history events per input and keeps each run's step payloads under a byte budget
 * (`HISTORY_BUDGET_BYTES` in workflows/batch/workflow.ts, 1.5 MB, before it continues as new), so
 * the bytes per input count: `{"i":7,"o":812,"l":40}` is 22 bytes where
 * `{"index":7,"offset":812,"length":40}` is 36, and a step carries up to 500 such orders each
 * way. The keys are recorded history: renaming one would break the replay of every recorded batch
 * (test/workflows/histories/batch), so they stay, and each has its readable name first in its
 * TSDoc below (`index: …` for `i`).
 *
 * Where they are decoded into readable names: a {@link Final} into an outcome line of
 * `results.jsonl` (`BatchResultLine`, contracts/batch.ts) in activities/batch/outcomes.ts
 * (`outcomeSegments`) and children.ts (the per-job mode's `ChildFinal`); a {@link Completion} is
 * built from the job's record in collect.ts (`collected`); a {@link LineRef} from the input file in
 * input.ts (`readLines`); the workflow reads them in workflows/batch/ledger-step.ts and plan.ts.
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
  /** The next line's index (from 0). */
  line: number;
  /** The next line's byte offset in the file. */
  offset: number;
}

/** One input line: its index, byte offset and length in the file, and its key value (per-key caps). */
export interface LineRef {
  /** index: the line's index in the input (from 0), the input's identity in every outcome. */
  i: number;
  /** offset: the line's byte offset in the input file. */
  o: number;
  /** length: the line's length in bytes. */
  l: number;
  /** key: the value at the batch's `keyPath` in the line's input (per-key caps). */
  k?: string;
}

/** The outcome of one input, decided by the workflow, written by the next step. */
export interface Final {
  /** index: the input's line index (`index` of its outcome line). */
  i: number;
  /** status: the input's outcome (`status`). */
  s: BatchOutcomeStatus;
  /** attempts: remote runs of the input (`attempts`; 0 when it never ran). */
  a: number;
  /** remoteJobIds: the remote job ids it ran as (`remoteJobIds`). */
  ids: string[];
  /** error: the last error text (`error`). */
  e?: string;
  /** errorType: the last error's type (`errorType`). */
  et?: string;
  /** executionTime: ms of the last run (`executionTime`). */
  x?: number;
  /** delayTime: ms the last run queued (`delayTime`). */
  d?: number;
  /** submittedAt: when the input was first submitted (`submittedAt`). */
  t0?: number;
  /** endedAt: when its outcome was decided (`endedAt`). */
  t1: number;
  /** completion: where the collected record with the output is (completion segment `seq`, line `n`). */
  c?: { seq: number; n: number };
  /** offset: the input line's byte offset, for the dead-letter file. */
  o?: number;
  /** length: the input line's length, for the dead-letter file. */
  l?: number;
}

/** A due retry of a finished job: `/retry` while its result is retained, else a new submission. */
export interface RetryOrder extends LineRef {
  /** remoteJobId: the finished job (`/retry` keeps its id). */
  id: string;
  /** attempt: the attempt this starts (2 for the first retry). */
  a: number;
  /** How the retry rule (contracts/retry-rule.ts `retryOrResubmit`) chose to run it again. */
  how: 'retry' | 'resubmit';
}

/**
 * A first submission of a line whose answer was not known when its step ended (docs/batch.md "Late
 * answers"): it holds its slot; the call goes on in daemon `dm`, its answer is journaled in step
 * `q`'s submit journal, and a later step reports it. Never sent again while its answer may come.
 */
export interface Submitting extends LineRef {
  /** seq: the step that sent it (its submit journal has the answer once it came). */
  q: number;
  /** daemon: the daemon process running the call (its memory knows it first). */
  dm: string;
  /** deadline: epoch ms after which the call is abandoned unanswered (then sent again, same idempotency key). */
  dl: number;
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
  /** The batch's first step opens it first (`openBatch`'s checks, count and price: `opened` in the result). */
  open?: { pricePerHour?: number };
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
  /** submitting: earlier submissions not answered yet, to report once their answer is known. */
  sg?: Submitting[];
  /** detach: the step may end before its slow submissions answer (returned as `sg`); workflows since the patch. */
  dt?: boolean;
  /**
   * Wait up to `waitMs` for at least `min` completions. With `refillMs` (no key caps, webhooks),
   * the step goes on for that long: each COMPLETED job that arrives frees its slot, and a new
   * line is read and submitted in its place at once, without waiting for the next step.
   * `held` (an open feed's refill): the jobs the batch holds besides the step's new lines (in flight,
   * submissions not answered, retries and deferred lines it sends); the refill ends once all are done.
   */
  /**
   * `linger`: how long the wait goes on for `min` after the first completion came (the inbox's own
   * 200 ms when absent); the last collection, with the input all sent, waits longer for its stragglers.
   */
  /**
   * `last` (a file's read with no deferred line, retry or unanswered submission left): if this step
   * sends the file's last line, it goes on collecting as the next step would (issue 23: a step and a
   * workflow task fewer): up to `waitMs` for every job held, lingering `linger` after the first. `held`:
   * the jobs the batch holds besides the step's new lines.
   */
  collect: {
    waitMs: number;
    min: number;
    refillMs?: number;
    held?: number;
    linger?: number;
    last?: { held: number; waitMs: number; linger: number };
  };
}

/** A remote job seen finished (webhook or poll); its full record is in the step's completion segment. */
export interface Completion {
  /** remoteJobId. */
  id: string;
  /** retries: the `/retry`s of this id the record belongs to (a webhook of an older run does not match). */
  r: number;
  /** polled: the answer to a `/status` poll the workflow ordered (it reads the job's current run: workflows/batch/completion-match.ts). */
  q?: 1;
  /** status: the job's terminal status. */
  s: JobStatus;
  /** error: the head of its error text. */
  e?: string;
  /** errorType. */
  et?: string;
  /** executionTime, ms. */
  x?: number;
  /** delayTime, ms. */
  d?: number;
  /** line: the record's line in the step's completion segment. */
  n: number;
}

export interface StepResult {
  read?: { cursor: Cursor; eof: boolean };
  /** Lines submitted: their remote job id, and `dup` when the service answered an earlier submission (idempotency key). */
  submitted: (LineRef & { id: string; dup?: boolean })[];
  deferred: LineRef[];
  /** Lines that are not valid input (`i`: index). */
  bad: { i: number; reason: string }[];
  /** Submissions the service refused for good (400, payload too large): the input fails. */
  rejected: { i: number; error: string }[];
  /** Retry orders carried out (`i`: index, `id`: the remote job now); `refused`: `/retry` was refused, the rule resubmits next. */
  retried: { i: number; id: string; how: 'retry' | 'resubmit'; refused?: boolean }[];
  cancelled: string[];
  completions: Completion[];
  /** Polled jobs the service no longer knows (ttl expired). */
  expired: string[];
  /** Polled jobs still queued or running. */
  polledRunning: string[];
  /** daemon: the daemon process that ran the step (a new one knows none of the jobs in flight). */
  dm?: string;
  /** submitting: this step's submissions still unanswered when it ended (only with `dt`). */
  sg?: Submitting[];
  /** 429s met (the step then stops submitting). */
  rateLimited: number;
  /** USD per worker-hour, when asked for (`wantPrice`) and known. */
  pricePerHour?: number;
  /** What opening the batch found (`open`): its lines, bytes and price. */
  opened?: { total: number; bytes: number; pricePerHour?: number };
  /**
   * What held the step's submissions back: `rate-budget` (the endpoint's shared budget made them
   * wait, or a 429 came), `priority` (a higher-priority batch on the endpoint has input left).
   */
  held?: WaitReason[];
}

/** A step's result before it has done anything. */
export const emptyStepResult = (): StepResult => ({
  submitted: [],
  deferred: [],
  bad: [],
  rejected: [],
  retried: [],
  cancelled: [],
  completions: [],
  expired: [],
  polledRunning: [],
  rateLimited: 0,
});
