/** The REST control plane (`/v1`): pods and templates (endpoints are in rest-endpoint-routes.ts). */
import { type PodIncludes } from '../../contracts';
import { podView, readPod } from '../control-plane/pod-view';
import {
  createTemplate,
  deleteTemplate,
  readableTemplate,
  toWireTemplate,
  updateTemplate,
  type UpdateMode,
} from '../control-plane/templates';
import { type PlatformServices } from '../services';
import { authenticate } from './http/auth';
import { sendJson } from './http/respond';
import { type Ctx, type Router } from './http/router';
import { restEndpointRoutes } from './rest-endpoint-routes';
import { flag, restBody } from './rest-request';

const includes = (ctx: Ctx): PodIncludes => ({
  machine: flag(ctx, 'includeMachine'),
  networkVolume: flag(ctx, 'includeNetworkVolume'),
  savingsPlans: flag(ctx, 'includeSavingsPlans'),
  template: flag(ctx, 'includeTemplate'),
  workers: flag(ctx, 'includeWorkers'),
});

/** `GET /v1/pods/:podId` and `GET /v1/pods` (the caller's worker pods, with includeWorkers). */
function restPodRoutes(router: Router, s: PlatformServices): void {
  router.on('GET', '/v1/pods/:podId', (ctx) => {
    const user = authenticate(s, ctx.req);
    sendJson(
      ctx.res,
      200,
      readPod((id) => s.pool.pod(id), s.registry, user, ctx.params.podId ?? '', includes(ctx)),
    );
  });

  // Locally every pod is a serverless worker, so without includeWorkers the list is empty.
  router.on('GET', '/v1/pods', (ctx) => {
    const user = authenticate(s, ctx.req);
    const include = includes(ctx);
    const endpointId = ctx.query.get('endpointId');
    const pods = include.workers
      ? s.pool
          .allPods()
          .filter(
            (p) => p.userId === user.id && p.phase !== 'exited' && (endpointId === null || p.endpointId === endpointId),
          )
      : [];
    sendJson(
      ctx.res,
      200,
      pods.map((p) => podView(p, s.registry, include)),
    );
  });
}

/** A template update: `spec-defaults` (POST .../update) or `merge` (PATCH). */
async function updateTemplateRoute(s: PlatformServices, ctx: Ctx, mode: UpdateMode): Promise<void> {
  const user = authenticate(s, ctx.req);
  const { template } = updateTemplate(
    s.registry,
    user,
    ctx.params.templateId ?? '',
    await restBody(ctx, 'template update'),
    mode,
  );
  sendJson(ctx.res, 200, toWireTemplate(template));
}

/** `/v1/templates`: create, list, read, update (POST .../update and PATCH), delete. */
function restTemplateRoutes(router: Router, s: PlatformServices): void {
  router.on('POST', '/v1/templates', async (ctx) => {
    const user = authenticate(s, ctx.req);
    sendJson(ctx.res, 200, toWireTemplate(createTemplate(s.registry, user, await restBody(ctx, 'POST /v1/templates'))));
  });

  router.on('GET', '/v1/templates', (ctx) => {
    const user = authenticate(s, ctx.req);
    sendJson(
      ctx.res,
      200,
      s.registry
        .templatesOf(user.id)
        .filter((t) => t.userId === user.id)
        .map(toWireTemplate),
    );
  });

  router.on('GET', '/v1/templates/:templateId', (ctx) => {
    const user = authenticate(s, ctx.req);
    sendJson(ctx.res, 200, toWireTemplate(readableTemplate(s.registry, user, ctx.params.templateId ?? '')));
  });

  // POST .../update gives omitted fields the spec's defaults (those that have one); PATCH changes only the
  // fields given (what runpodctl's `template update` expects).
  router.on('POST', '/v1/templates/:templateId/update', (ctx) => updateTemplateRoute(s, ctx, 'spec-defaults'));
  router.on('PATCH', '/v1/templates/:templateId', (ctx) => updateTemplateRoute(s, ctx, 'merge'));

  router.on('DELETE', '/v1/templates/:templateId', (ctx) => {
    const user = authenticate(s, ctx.req);
    deleteTemplate(s.registry, user, ctx.params.templateId ?? '');
    ctx.res.writeHead(204).end();
  });
}

/**
 * The REST half of the control plane (`/v1`, `Authorization: Bearer <API key>`): read pods;
 * create, read, update and delete templates and endpoints. Thin: the domain functions do the
 * work and the checks.
 */
export function restRoutes(router: Router, s: PlatformServices): void {
  restEndpointRoutes(router, s);
  restPodRoutes(router, s);
  restTemplateRoutes(router, s);
}
