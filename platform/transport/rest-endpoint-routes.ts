/** The REST endpoint operations (`/v1/endpoints`): list, read, create, update and delete, as runpodctl's `serverless` commands use them. */
import { deleteEndpoint, ownedEndpoint } from '../control-plane/endpoints';
import { createRestEndpoint, restEndpointView, updateRestEndpoint } from '../control-plane/rest-endpoints';
import { type PlatformServices } from '../services';
import { authenticate } from './http/auth';
import { sendJson } from './http/respond';
import { type Ctx, type Router } from './http/router';
import { flag, restBody } from './rest-request';

/**
 * `/v1/endpoints[/{id}]` after RunPod's REST reference, with the auth, validation and error
 * rules of the rest of `/v1`. DELETE scales the endpoint down and deletes it (the reference has
 * no workersMin/workersMax precondition, unlike GraphQL `deleteEndpoint`).
 */
export function restEndpointRoutes(router: Router, s: PlatformServices): void {
  const deps = { registry: s.registry, engine: s.engine, podsOf: (id: string) => s.pool.podsOf(id) };
  const include = (ctx: Ctx) => ({ template: flag(ctx, 'includeTemplate'), workers: flag(ctx, 'includeWorkers') });

  router.on('GET', '/v1/endpoints', (ctx) => {
    const user = authenticate(s, ctx.req);
    const inc = include(ctx);
    sendJson(
      ctx.res,
      200,
      s.registry.endpointsOf(user.id).map((e) => restEndpointView(e, deps, inc)),
    );
  });

  router.on('POST', '/v1/endpoints', async (ctx) => {
    const user = authenticate(s, ctx.req);
    sendJson(
      ctx.res,
      200,
      restEndpointView(createRestEndpoint(s, user, await restBody(ctx, 'POST /v1/endpoints')), deps, {}),
    );
  });

  router.on('GET', '/v1/endpoints/:endpointId', (ctx) => {
    const user = authenticate(s, ctx.req);
    const inc = include(ctx);
    sendJson(ctx.res, 200, restEndpointView(ownedEndpoint(s.registry, user, ctx.params.endpointId ?? ''), deps, inc));
  });

  const update = async (ctx: Ctx): Promise<void> => {
    const user = authenticate(s, ctx.req);
    const id = ctx.params.endpointId ?? '';
    ownedEndpoint(s.registry, user, id);
    sendJson(
      ctx.res,
      200,
      restEndpointView(updateRestEndpoint(s, user, id, await restBody(ctx, 'endpoint update')), deps, {}),
    );
  };
  router.on('PATCH', '/v1/endpoints/:endpointId', update);
  router.on('POST', '/v1/endpoints/:endpointId/update', update);

  router.on('DELETE', '/v1/endpoints/:endpointId', (ctx) => {
    const user = authenticate(s, ctx.req);
    deleteEndpoint(s, user, ctx.params.endpointId ?? '', { scaleDown: true });
    ctx.res.writeHead(204).end();
  });
}
