/**
 * Typed client of the control-plane GraphQL API (`POST {url}` with `{query, variables}`):
 * endpoints (save, list, delete, switch template) and templates (save, list, read). Inputs are
 * checked with the contracts before sending and every answer is validated against them
 * (graphql-call.ts sends one; graphql-shapes.ts holds the selections and the answers' shapes).
 */
import { type Dispatcher } from 'undici';
import { z } from 'zod';
import { EndpointInput, EndpointView, MyEndpoints } from '../contracts/endpoint';
import { PodTemplate, type SaveTemplateInput } from '../contracts/template';
import { BadRequestError } from './errors';
import { graphqlCall } from './graphql-call';
import { Account, DataCenterView, ENDPOINT, GpuTypeView, TEMPLATE, type GraphqlOperation } from './graphql-shapes';
import { HttpCore, type HttpCoreOptions } from './http';
import { type RetryOptions } from './retry';

export { GraphqlErrorItem, graphqlErrorField } from './graphql-errors';
export { Account, type GraphqlOperation } from './graphql-shapes';

/** Options of {@link GraphqlClient}. */
export interface GraphqlClientOptions extends Pick<HttpCoreOptions, 'onRateLimited' | 'nodeHttp'> {
  /** The GraphQL URL, e.g. `http://127.0.0.1:8080/graphql` or `https://api.runpod.io/graphql`. */
  url: string;
  /** Sent as `Authorization: Bearer <key>` (the platform and the service also take `?api_key=`). */
  apiKey: string;
  /** Deadline of one request, ms. Default 30000. */
  requestTimeoutMs?: number;
  /** Retries of queries (mutations are never repeated: a create could happen twice). */
  retry?: Partial<RetryOptions>;
  connections?: number;
  dispatcher?: Dispatcher;
}

/** Client of one GraphQL URL. Safe for concurrent use. */
export class GraphqlClient {
  private readonly http: HttpCore;

  constructor(private readonly opts: GraphqlClientOptions) {
    this.http = new HttpCore({ ...opts, baseUrl: opts.url });
  }

  /** `saveEndpoint`: creates (no `id`; name, gpuIds, templateId required) or modifies (with `id`) an endpoint. */
  async saveEndpoint(input: EndpointInput): Promise<EndpointView> {
    const ctx = { operation: 'saveEndpoint' } as const;
    const checked = EndpointInput.safeParse(input);
    if (!checked.success)
      throw new BadRequestError(`saveEndpoint: invalid input: ${checked.error.issues[0]!.message}`, {
        ...ctx,
        body: checked.error.issues,
      });
    if (input.id === undefined) {
      for (const f of ['name', 'gpuIds', 'templateId'] as const) {
        if (input[f] === undefined)
          throw new BadRequestError(`saveEndpoint: ${f} is required to create an endpoint`, ctx);
      }
    }
    const query = `mutation SaveEndpoint($input: EndpointInput!) { saveEndpoint(input: $input) { ${ENDPOINT} } }`;
    return this.request(
      'saveEndpoint',
      query,
      { input },
      false,
      z.object({ saveEndpoint: EndpointView }),
      (d) => d.saveEndpoint,
    );
  }

  /** `myself { endpoints { ... pods } serverlessDiscount }`: the caller's endpoints and discount. */
  async listEndpoints(): Promise<MyEndpoints> {
    const query = `query Endpoints { myself { endpoints { ${ENDPOINT} } serverlessDiscount { discountFactor type expirationDate } } }`;
    return this.request('listEndpoints', query, {}, true, z.object({ myself: MyEndpoints }), (d) => d.myself);
  }

  /** `deleteEndpoint(id)`: the service refuses unless workersMin and workersMax are both 0. */
  async deleteEndpoint(id: string): Promise<void> {
    const query = 'mutation DeleteEndpoint($id: String!) { deleteEndpoint(id: $id) }';
    await this.request('deleteEndpoint', query, { id }, false, z.object({ deleteEndpoint: z.null() }), () => undefined);
  }

  /** `updateEndpointTemplate`: runs the endpoint on another template (a rolling release). */
  async updateEndpointTemplate(endpointId: string, templateId: string): Promise<EndpointView> {
    const query = `mutation Switch($input: UpdateEndpointTemplateInput) { updateEndpointTemplate(input: $input) { ${ENDPOINT} } }`;
    const schema = z.object({ updateEndpointTemplate: EndpointView });
    return this.request(
      'updateEndpointTemplate',
      query,
      { input: { endpointId, templateId } },
      false,
      schema,
      (d) => d.updateEndpointTemplate,
    );
  }

  /** `saveTemplate`: creates (no `id`) or modifies (with `id`: a rolling release of its endpoints) a template. */
  async saveTemplate(input: SaveTemplateInput): Promise<PodTemplate> {
    const query = `mutation SaveTemplate($input: SaveTemplateInput) { saveTemplate(input: $input) { ${TEMPLATE} } }`;
    return this.request(
      'saveTemplate',
      query,
      { input },
      false,
      z.object({ saveTemplate: PodTemplate }),
      (d) => d.saveTemplate,
    );
  }

  /** `myself { podTemplates }`: the caller's own templates. */
  async listTemplates(): Promise<PodTemplate[]> {
    const query = `query Templates { myself { podTemplates { ${TEMPLATE} } } }`;
    const schema = z.object({ myself: z.object({ podTemplates: z.array(PodTemplate) }) });
    return this.request('listTemplates', query, {}, true, schema, (d) => d.myself.podTemplates);
  }

  /** `podTemplate(id)`: one template the caller may read, or undefined. */
  async getTemplate(id: string): Promise<PodTemplate | undefined> {
    const query = `query Template($id: String!) { podTemplate(id: $id) { ${TEMPLATE} } }`;
    return this.request(
      'getTemplate',
      query,
      { id },
      true,
      z.object({ podTemplate: PodTemplate.nullable() }),
      (d) => d.podTemplate ?? undefined,
    );
  }

  /** `deleteTemplate(templateName)`: deletes one of the caller's templates; refused while an endpoint uses it. */
  async deleteTemplate(templateName: string): Promise<void> {
    const query = 'mutation DeleteTemplate($name: String) { deleteTemplate(templateName: $name) }';
    await this.request(
      'deleteTemplate',
      query,
      { name: templateName },
      false,
      z.object({ deleteTemplate: z.null() }),
      () => undefined,
    );
  }

  /** `podTemplates(input)`: public templates, official (`isRunpod: true`) or community (`false`), as runpodctl's `template list` asks. */
  async publicTemplates(
    filter: { isRunpod?: boolean; isServerless?: boolean; category?: string } = {},
  ): Promise<PodTemplate[]> {
    const query = `query PodTemplates($input: PodTemplateInput) { podTemplates(input: $input) { ${TEMPLATE} } }`;
    return this.request(
      'publicTemplates',
      query,
      { input: filter },
      true,
      z.object({ podTemplates: z.array(PodTemplate) }),
      (d) => d.podTemplates,
    );
  }

  /** The caller's account (`myself`) with the fields runpodctl's `user` selects. */
  async account(): Promise<Account> {
    const query =
      'query { myself { id email clientBalance currentSpendPerHr spendLimit notifyPodsStale notifyPodsGeneral notifyLowBalance } }';
    return this.request('account', query, {}, true, z.object({ myself: Account }), (d) => d.myself);
  }

  /** `gpuTypes` with runpodctl's `gpu list` selection. */
  async gpuTypes(): Promise<z.infer<typeof GpuTypeView>[]> {
    const query = 'query { gpuTypes { id displayName memoryInGb secureCloud communityCloud } }';
    return this.request('gpuTypes', query, {}, true, z.object({ gpuTypes: z.array(GpuTypeView) }), (d) => d.gpuTypes);
  }

  /** `dataCenters` with runpodctl's `datacenter list` selection. */
  async dataCenters(): Promise<z.infer<typeof DataCenterView>[]> {
    const query = 'query { dataCenters { id name location gpuAvailability { gpuTypeId displayName stockStatus } } }';
    return this.request(
      'dataCenters',
      query,
      {},
      true,
      z.object({ dataCenters: z.array(DataCenterView) }),
      (d) => d.dataCenters,
    );
  }

  async close(): Promise<void> {
    await this.http.close();
  }

  private request<S extends z.ZodType, R>(
    operation: GraphqlOperation,
    query: string,
    variables: Record<string, unknown>,
    idempotent: boolean,
    schema: S,
    pick: (data: z.output<S>) => R,
  ): Promise<R> {
    return graphqlCall(this.http, { operation, query, variables, idempotent, retry: this.opts.retry }, schema, pick);
  }
}
