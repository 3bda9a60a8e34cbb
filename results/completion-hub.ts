/**
 * How a job's outcome reaches the activity waiting for it: the contract between the job activities
 * (which register a wait) and the daemon's webhook receiver (worker/webhook-hub.ts implements it).
 * It lives in the results layer, below both, beside the outcome record it delivers (./outcome.ts),
 * so the receiver does not import the activities.
 */
import { type RemoteOutcome, type RunScope } from '../contracts';

/** A webhook-mode activity waiting for its job to finish (completed asynchronously). */
export interface AwaitRegistration extends RunScope {
  activityId: string;
  taskToken: Uint8Array;
  endpointId: string;
  remoteJobId: string;
  /** How often the remote job was retried before this wait: webhooks of older runs must not match. */
  retries: number;
  inlineLimit: number;
}

/**
 * The daemon side of webhook completion: builds the per-job webhook URL and completes waiting
 * activities when the service calls it (or when its fallback poll sees the job finish).
 */
export interface CompletionHub {
  /**
   * The URL the service calls when the remote job of the run's `attempt` on `endpointId` finishes;
   * it expires after the job's ttl (`ttlMs`, default the spec's) and its result's retention.
   */
  webhookUrl(run: RunScope, endpointId: string, attempt: number, inlineLimit: number, ttlMs?: number): string;
  /** The URL the service calls when the job of a batch run's input `index`, `attempt` finishes (the record goes to the batch inbox). */
  batchWebhookUrl(run: RunScope, endpointId: string, index: number, attempt: number, ttlMs?: number): string;
  /** The batch run's submission of input `index`, `attempt` is remote job `remoteJobId` (what its URL's calls must name). */
  batchJobSent(run: RunScope, index: number, attempt: number, remoteJobId: string): void;
  /**
   * Registers a waiting activity. Returns the outcome if the webhook came first (then nothing
   * stays registered); otherwise the hub completes the activity later by its task token.
   */
  register(reg: AwaitRegistration): RemoteOutcome | undefined;
}
