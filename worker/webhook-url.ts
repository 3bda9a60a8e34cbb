/**
 * The signed webhook URLs of jobs: what a URL speaks for (the run, the endpoint, the job's attempt
 * or a batch's submission, an expiry) encoded in the path with an HMAC of it, so a call proves which
 * job it is about and stops being accepted once the job and its result can no longer exist.
 */
import { createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { LIMITS, MINUTE, type RunScope } from '../contracts';

/** What a signed webhook URL speaks for. */
export interface WebhookTarget {
  /** `job`: a job workflow's wait (completed by the hub); `batch`: a submission of a batch run (its inbox). */
  kind: 'job' | 'batch';
  run: RunScope;
  /** The endpoint the job was submitted to: its `/status` is the outcome the daemon trusts. */
  endpointId: string;
  /** Job: the workflow's attempt (one remote job each); batch: the submission's attempt. */
  attempt: number;
  /** Batch: the input's index in the batch. */
  index?: number;
  /** Job: outputs up to this many JSON bytes go inline (bigger ones to the results store). */
  inlineLimit: number;
  /** Epoch ms after which the URL is refused. */
  expiresAt: number;
}

/** Why a webhook path is refused: its HTTP status and a stable code. */
export interface WebhookRefusal {
  status: 403 | 404 | 410;
  code: 'WEBHOOK_FORGED' | 'WEBHOOK_EXPIRED' | 'WEBHOOK_LEGACY' | 'WEBHOOK_MALFORMED';
  message: string;
}

/** Clocks of the daemons sharing a secret may differ by this much: an expiry is checked this late. */
export const CLOCK_SKEW_MS = 5 * MINUTE;

/**
 * How long after it is signed a job's URL is accepted: the job's ttl (its whole life, from
 * submission), the retention of its result after it ended, the service's webhook retries, and a
 * margin for clocks. With the spec's defaults: 24 h + 30 min + 20 s + 5 min.
 */
export const webhookLifetimeMs = (ttlMs: number = LIMITS.ttlDefaultMs): number =>
  ttlMs + LIMITS.retentionAsyncMs + LIMITS.webhookRetries * LIMITS.webhookRetryDelayMs + CLOCK_SKEW_MS;

/** Version of the signed form: the first path segment after `/hooks/`. */
const VERSION = 'v2';

type Claims = [
  kind: 'j' | 'b',
  workflowId: string,
  runId: string,
  endpointId: string,
  a: number,
  i: number,
  l: number,
  x: number,
];

const refusal = (status: WebhookRefusal['status'], code: WebhookRefusal['code'], message: string): WebhookRefusal => ({
  status,
  code,
  message,
});

const count = (n: unknown): n is number => typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;

/** Builds and verifies webhook URLs under `publicUrl` (`/hooks/v2/<claims>/<signature>`), signed with `secret`. */
export class WebhookUrls {
  /** The secret as a key made once: `createHmac` with a string imports it again at every sign and verify. */
  private readonly key: KeyObject;

  constructor(
    secret: string,
    private readonly publicUrl: string,
  ) {
    this.key = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  /** The URL of the remote job of a job workflow's attempt (`ttlMs`: the job's ttl policy). */
  job(
    run: RunScope,
    endpointId: string,
    attempt: number,
    inlineLimit: number,
    ttlMs?: number,
    now = Date.now(),
  ): string {
    return this.url([
      'j',
      run.workflowId,
      run.runId,
      endpointId,
      attempt,
      0,
      inlineLimit,
      now + webhookLifetimeMs(ttlMs),
    ]);
  }

  /** The URL of one submission of a batch run: input `index`, attempt `attempt` (its record goes to the batch inbox). */
  batch(run: RunScope, endpointId: string, index: number, attempt: number, ttlMs?: number, now = Date.now()): string {
    return this.url(['b', run.workflowId, run.runId, endpointId, attempt, index, 0, now + webhookLifetimeMs(ttlMs)]);
  }

  /** What the path segments after `/hooks/` speak for, or why they are refused. */
  verify(segments: string[], now = Date.now()): { target: WebhookTarget } | { refused: WebhookRefusal } {
    if (segments.length === 3 && segments[0] !== VERSION && /^\d+$/.test(segments[1]!))
      return {
        refused: refusal(
          410,
          'WEBHOOK_LEGACY',
          'webhook URL of an earlier sluice (no expiry, not bound to its job): refused; the job is found by its /status poll',
        ),
      };
    if (segments.length !== 3 || segments[0] !== VERSION)
      return { refused: refusal(404, 'WEBHOOK_MALFORMED', 'unknown webhook') };
    const [, encoded, signature] = segments as [string, string, string];
    const want = Buffer.from(this.sign(encoded));
    const got = Buffer.from(signature);
    if (want.length !== got.length || !timingSafeEqual(want, got))
      return { refused: refusal(403, 'WEBHOOK_FORGED', 'webhook signature does not match') };
    const c = parseClaims(encoded);
    if (!c) return { refused: refusal(404, 'WEBHOOK_MALFORMED', 'unknown webhook') };
    const [kind, workflowId, runId, endpointId, attempt, index, inlineLimit, expiresAt] = c;
    if (now > expiresAt)
      return {
        refused: refusal(410, 'WEBHOOK_EXPIRED', `webhook URL expired at ${new Date(expiresAt).toISOString()}`),
      };
    const target: WebhookTarget = {
      kind: kind === 'j' ? 'job' : 'batch',
      run: { workflowId, runId },
      endpointId,
      attempt,
      inlineLimit,
      expiresAt,
    };
    if (kind === 'b') target.index = index;
    return { target };
  }

  private url(claims: Claims): string {
    const encoded = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${this.publicUrl}/hooks/${VERSION}/${encoded}/${this.sign(encoded)}`;
  }

  private sign(encoded: string): string {
    return createHmac('sha256', this.key).update(`sluice-webhook/${VERSION}\n${encoded}`).digest('base64url');
  }
}

/** The claims of a signed path (already verified), or undefined when they are not well formed. */
function parseClaims(encoded: string): Claims | undefined {
  let c: unknown;
  try {
    c = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(c) || c.length !== 8) return undefined;
  const [kind, w, r, e, ...nums] = c as unknown[];
  const ok =
    (kind === 'j' || kind === 'b') &&
    [w, r, e].every((s) => typeof s === 'string' && s.length > 0) &&
    nums.every(count);
  return ok ? (c as Claims) : undefined;
}
