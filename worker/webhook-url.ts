/**
 * The signed webhook URLs of runs: the run's scope (workflow id, run id, batch or not) and the inline
 * limit of its outputs in the path with an HMAC of both, so only the service that got a URL can call it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type RunScope } from '../contracts';

/** Where a verified webhook goes: the run, the inline limit of its outputs, and whether it is a batch's. */
export interface WebhookTarget {
  run: RunScope;
  inlineLimit: number;
  batch: boolean;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64url');

/** Builds and verifies webhook URLs under `publicUrl` (`/hooks/<scope>/<inlineLimit>/<signature>`), signed with `secret`. */
export class WebhookUrls {
  constructor(
    private readonly secret: string,
    private readonly publicUrl: string,
  ) {}

  /** The URL of a job of the run (outputs up to `inlineLimit` bytes inline). */
  job(run: RunScope, inlineLimit: number): string {
    return this.url(`${run.workflowId}\n${run.runId}`, inlineLimit);
  }

  /** The URL of a job of a batch run (its record goes to the batch inbox). */
  batch(run: RunScope): string {
    return this.url(`${run.workflowId}\n${run.runId}\nbatch`, 0);
  }

  /** The target of a webhook path, or undefined when its signature is wrong. */
  verify(encodedScope: string, inlineLimit: string, signature: string): WebhookTarget | undefined {
    const scope = Buffer.from(encodedScope, 'base64url').toString();
    const [workflowId, runId, kind, ...rest] = scope.split('\n');
    const limit = Number(inlineLimit);
    if (
      !workflowId ||
      !runId ||
      (kind !== undefined && kind !== 'batch') ||
      rest.length > 0 ||
      !Number.isInteger(limit) ||
      limit < 0
    )
      return undefined;
    const want = Buffer.from(this.sign(scope, limit));
    const got = Buffer.from(signature);
    return want.length === got.length && timingSafeEqual(want, got)
      ? { run: { workflowId, runId }, inlineLimit: limit, batch: kind === 'batch' }
      : undefined;
  }

  private url(scope: string, inlineLimit: number): string {
    return `${this.publicUrl}/hooks/${b64(scope)}/${inlineLimit}/${this.sign(scope, inlineLimit)}`;
  }

  private sign(scope: string, inlineLimit: number): string {
    return createHmac('sha256', this.secret).update(`${scope}\n${inlineLimit}`).digest('base64url');
  }
}
