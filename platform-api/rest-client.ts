/**
 * Typed client of the REST control plane (`{baseUrl}/pods/...`, `/templates/...`,
 * `/endpoints/...`, base e.g. `http://127.0.0.1:8080/v1`): read pods; create, read, update and
 * delete templates and endpoints, with the methods and bodies runpodctl sends. Bodies are
 * checked with the contracts before sending and answers are validated against them.
 */
import { type Dispatcher } from 'undici';
import { z } from 'zod';
import { RestEndpoint, RestEndpointCreate, RestEndpointUpdate } from '../contracts/endpoint-rest';
import { Pod, type PodIncludes } from '../contracts/pod';
import { Template, TemplateCreate, TemplateUpdate } from '../contracts/template';
import { BadRequestError, type PlatformApiErrorContext } from './errors';
import { HttpCore, type HttpCoreOptions, type HttpRequest } from './http';
import { withRetry, type RetryOptions } from './retry';
import { parseResponse, segment } from './validate';

/** Names of the REST operations, as used in error context. */
export type RestOperation =
  | 'getPod'
  | 'listPods'
  | 'createTemplate'
  | 'getTemplate'
  | 'listTemplates'
  | 'updateTemplate'
  | 'patchTemplate'
  | 'deleteTemplate'
  | 'listEndpoints'
  | 'getEndpoint'
  | 'createEndpoint'
  | 'updateEndpoint'
  | 'deleteEndpoint';

/** Options of {@link RestClient}. */
export interface RestClientOptions extends Pick<HttpCoreOptions, 'onRateLimited'> {
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
  return Object.fromEntries(
    Object.entries(INCLUDE_PARAMS).map(([k, param]) => [param, include[k as keyof PodIncludes] ? 'true' : undefined]),
  );
}

function encodeBody<S extends z.ZodType>(schema: S, body: unknown, ctx: PlatformApiErrorContext): string {
  const r = schema.safeParse(body);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new BadRequestError(
      `${ctx.operation}: invalid body: ${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`,
      { ...ctx, body: r.error.issues },
    );
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
    return this.call(
      { method: 'GET', path: `/pods/${segment('podId', podId, ctx)}`, query: includeQuery(include), ctx },
      true,
      Pod,
    );
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
    return this.call(
      { method: 'POST', path: '/templates', body: encodeBody(TemplateCreate, body, ctx), ctx },
      false,
      Template,
    );
  }

  /** `GET /templates/{templateId}`. */
  async getTemplate(templateId: string): Promise<Template> {
    const ctx = { operation: 'getTemplate' } as const;
    return this.call(
      { method: 'GET', path: `/templates/${segment('templateId', templateId, ctx)}`, ctx },
      true,
      Template,
    );
  }

  /** `GET /templates`: the caller's own templates. */
  async listTemplates(): Promise<Template[]> {
    return this.call(
      { method: 'GET', path: '/templates', ctx: { operation: 'listTemplates' } },
      true,
      z.array(Template),
    );
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

  /** `PATCH /templates/{templateId}` (runpodctl `template update`): only the given fields change; a rolling release of its endpoints. */
  async patchTemplate(templateId: string, body: TemplateUpdate): Promise<Template> {
    const ctx = { operation: 'patchTemplate' } as const;
    const path = `/templates/${segment('templateId', templateId, ctx)}`;
    return this.call({ method: 'PATCH', path, body: encodeBody(TemplateUpdate, body, ctx), ctx }, true, Template);
  }

  /** `DELETE /templates/{templateId}` (runpodctl `template delete`): refused while an endpoint uses it. */
  async deleteTemplate(templateId: string): Promise<void> {
    const ctx = { operation: 'deleteTemplate' } as const;
    await withRetry(
      () => this.http.send({ method: 'DELETE', path: `/templates/${segment('templateId', templateId, ctx)}`, ctx }),
      { idempotent: false, retry: this.opts.retry },
    );
  }

  /** `GET /endpoints` (runpodctl `serverless list`): the caller's endpoints. */
  async listEndpoints(include: Pick<PodIncludes, 'template' | 'workers'> = {}): Promise<RestEndpoint[]> {
    const ctx = { operation: 'listEndpoints' } as const;
    return this.call(
      { method: 'GET', path: '/endpoints', query: includeQuery(include), ctx },
      true,
      z.array(RestEndpoint),
    );
  }

  /** `GET /endpoints/{endpointId}` (runpodctl `serverless get`). */
  async getEndpoint(
    endpointId: string,
    include: Pick<PodIncludes, 'template' | 'workers'> = {},
  ): Promise<RestEndpoint> {
    const ctx = { operation: 'getEndpoint' } as const;
    return this.call(
      {
        method: 'GET',
        path: `/endpoints/${segment('endpointId', endpointId, ctx)}`,
        query: includeQuery(include),
        ctx,
      },
      true,
      RestEndpoint,
    );
  }

  /** `POST /endpoints`: a new endpoint on a serverless template (`templateId` required). */
  async createEndpoint(body: RestEndpointCreate): Promise<RestEndpoint> {
    const ctx = { operation: 'createEndpoint' } as const;
    return this.call(
      { method: 'POST', path: '/endpoints', body: encodeBody(RestEndpointCreate, body, ctx), ctx },
      false,
      RestEndpoint,
    );
  }

  /** `PATCH /endpoints/{endpointId}` (runpodctl `serverless update`): only the given fields change. */
  async updateEndpoint(endpointId: string, body: RestEndpointUpdate): Promise<RestEndpoint> {
    const ctx = { operation: 'updateEndpoint' } as const;
    const path = `/endpoints/${segment('endpointId', endpointId, ctx)}`;
    return this.call(
      { method: 'PATCH', path, body: encodeBody(RestEndpointUpdate, body, ctx), ctx },
      true,
      RestEndpoint,
    );
  }

  /** `DELETE /endpoints/{endpointId}` (runpodctl `serverless delete`): scales it down and deletes it. */
  async deleteEndpoint(endpointId: string): Promise<void> {
    const ctx = { operation: 'deleteEndpoint' } as const;
    await withRetry(
      () => this.http.send({ method: 'DELETE', path: `/endpoints/${segment('endpointId', endpointId, ctx)}`, ctx }),
      { idempotent: false, retry: this.opts.retry },
    );
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private async call<S extends z.ZodType>(req: HttpRequest, idempotent: boolean, schema: S): Promise<z.output<S>> {
    const res = await withRetry(() => this.http.send(req), { idempotent, retry: this.opts.retry });
    return parseResponse(schema, res, req.ctx);
  }
}
