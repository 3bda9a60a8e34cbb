/**
 * What batch steps and the webhook receiver need of the batch webhook inbox, where the records of
 * finished batch jobs wait until the batch's next step takes them (implemented in the results store
 * by ./store-inbox, so any daemon's step takes what any daemon received). In the results layer,
 * below the activities (the readers) and the daemon's receiver (the writer).
 */
import { type JobRecord, type RunScope } from '../../contracts';

/**
 * The submission a webhook's URL speaks for (input `i`, attempt `a`: worker/webhook-url.ts), kept
 * with the job's record: a step matches a job to its input by it before the `/run` answer came.
 */
export interface InboxClaim {
  i: number;
  a: number;
}

/** A finished job's record as the inbox keeps it, with the claim of the URL it came to. */
export type InboxRecord = JobRecord & { claim?: InboxClaim };

/** One step's view of a run's inbox. */
export interface InboxReader {
  /** Every record received since the last finished step (each once in this step). */
  take(): Promise<InboxRecord[]>;
  /**
   * Resolves once `min` records wait, `lingerMs` after the first came (the inbox's own linger when
   * absent: a short one, for stragglers), after `ms`, or on abort.
   */
  wait(min: number, ms: number, signal?: AbortSignal, lingerMs?: number): Promise<void>;
  /** How far this step has read: kept with the step's result (as `inboxAt`), where the next step starts. */
  position(): InboxPosition;
}

/** Where a step stopped reading: a position per inbox log (see `ObjectStore.tail`). */
export type InboxPosition = Record<string, number>;

/** The inbox as batch steps see it. */
export interface BatchInbox {
  /** The reader of step `seq` of `run` (steps of a run are sequential; a retried step reads again what it read before). */
  open(run: RunScope, seq: number): Promise<InboxReader>;
}

/** The inbox as the webhook receiver sees it. */
export interface InboxReceiver {
  /** A finished job of a batch run (a webhook call to the URL of `claim`): resolves once it is kept (durably). */
  put(run: RunScope, record: JobRecord, claim?: InboxClaim): Promise<void>;
}
