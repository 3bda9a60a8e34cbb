/**
 * Typed client of the REST control plane (`{baseUrl}/pods/...`, `{baseUrl}/templates/...`,
 * base e.g. `http://127.0.0.1:8080/v1`): read pods, create, read and update templates. Bodies
 * are checked with the contracts before sending and answers are validated against them.
 */
import { type Dispatcher } from 'undici';
import { z } from 'zod';
import { Pod, Template, TemplateCreate, TemplateUpdate, type PodIncludes } from '../contracts';
import { BadRequestError, type PlatformApiErrorContext } from './errors';
import { HttpCore, type HttpRequest } from './http';
import { withRetry, type RetryOptions } from './retry';
import { parseResponse, segment } from './validate';

/** Names of the REST operations, as used in error context. */
export type RestOperation = 'getPod' | 'listPods' | 'createTemplate' | 'getTemplate' | 'listTemplates' | 'updateTemplate';

/** Options of {@link RestClient}. */
export interface RestClientOptions {
  /** REST base URL including `/v1`, e.g. `http://127.0.0.1:8080/v1` or `https://rest.runpod.io/v1`. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <key>`. */
  apiKey: string;
  /** Deadline of one request, ms. Default 30000. */
  requestTimeoutMs?: number;
  /** Retries of reads and updates (a create is never repeated). */
  retry?: Partial<RetryOptions>;
  connections?: number;
  dispatcher?: Dispatcher;
}

const INCLUDE_PARAMS: Record<keyof PodIncludes, string> = {
  machine: 'includeMachine',
  networkVolume: 'includeNetworkVolume',
  savingsPlans: 'includeSavingsPlans',
  template: 'includeTemplate',
  workers: 'includeWorkers',
};

function includeQuery(include: PodIncludes): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(INCLUDE_PARAMS).map(([k, param]) => [param, include[k as keyof PodIncludes] ? 'true' : undefined]));
}

function encodeBody<S extends z.ZodType>(schema: S, body: unknown, ctx: PlatformApiErrorContext): string {
  const r = schema.safeParse(body);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new BadRequestError(`${ctx.operation}: invalid body: ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`, { ...ctx, body: r.error.issues });
  }
  return JSON.stringify(body);
}

/** Client of one REST base URL. Safe for concurrent use. */
export class RestClient {
  private readonly http: HttpCore;

  constructor(private readonly opts: RestClientOptions) {
    this.http = new HttpCore(opts);
  }

  /** `GET /pods/{podId}` (a serverless worker too: `include.workers` only widens lists). */
  async getPod(podId: string, include: PodIncludes = {}): Promise<Pod> {
    const ctx = { operation: 'getPod' } as const;
    return this.call({ method: 'GET', path: `/pods/${segment('podId', podId, ctx)}`, query: includeQuery(include), ctx }, true, Pod);
  }

  /** `GET /pods`: the caller's pods (locally all are serverless workers: pass `include.workers`). */
  async listPods(include: PodIncludes & { endpointId?: string } = {}): Promise<Pod[]> {
    const ctx = { operation: 'listPods' } as const;
    const query = { ...includeQuery(include), endpointId: include.endpointId };
    return this.call({ method: 'GET', path: '/pods', query, ctx }, true, z.array(Pod));
  }

  /** `POST /templates`: a new template of the caller (names are unique). */
  async createTemplate(body: TemplateCreate): Promise<Template> {
    const ctx = { operation: 'createTemplate' } as const;
    return this.call({ method: 'POST', path: '/templates', body: encodeBody(TemplateCreate, body, ctx), ctx }, false, Template);
  }

  /** `GET /templates/{templateId}`. */
  async getTemplate(templateId: string): Promise<Template> {
    const ctx = { operation: 'getTemplate' } as const;
    return this.call({ method: 'GET', path: `/templates/${segment('templateId', templateId, ctx)}`, ctx }, true, Template);
  }

  /** `GET /templates`: the caller's own templates. */
  async listTemplates(): Promise<Template[]> {
    return this.call({ method: 'GET', path: '/templates', ctx: { operation: 'listTemplates' } }, true, z.array(Template));
  }

  /**
   * `POST /templates/{templateId}/update`. Omitted fields that have a spec default take it
   * (containerDiskInGb 50, isPublic false, readme "", volumeInGb 20, volumeMountPath /workspace).
   * Starts a rolling release of every endpoint using the template.
   */
  async updateTemplate(templateId: string, body: TemplateUpdate): Promise<Template> {
    const ctx = { operation: 'updateTemplate' } as const;
    const path = `/templates/${segment('templateId', templateId, ctx)}/update`;
    // Repeating the same update leaves the same template (one more release at most): safe to retry.
    return this.call({ method: 'POST', path, body: encodeBody(TemplateUpdate, body, ctx), ctx }, true, Template);
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private async call<S extends z.ZodType>(req: HttpRequest, idempotent: boolean, schema: S): Promise<z.output<S>> {
    const res = await withRetry(() => this.http.send(req), { idempotent, retry: this.opts.retry });
    return parseResponse(schema, res, req.ctx);
  }
}
