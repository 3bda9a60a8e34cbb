/** Scaler test helpers: a real stack whose daemon reaches the queue API through a proxy that can fail `/health`, bounds over GraphQL, jobs. */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll } from 'vitest';
import { ScalerClient } from '../../client/scaler';
import { type Bounds, type Decision, type ScalerState } from '../../contracts';
import { GraphqlClient } from '../../platform-api';
import { orchestratorStack } from '../helpers/orchestrator';
import { addEndpoint, call, eventually, exampleCommand } from '../helpers/platform';
import { healthProxy, type HealthProxy } from './health-proxy';

export { healthProxy, type HealthProxy } from './health-proxy';

export type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

/** A real stack (the daemon's queue calls go through a {@link healthProxy}), a scaling client and a GraphQL client, for one test file. */
export function scalerStack(): {
  readonly s: Stack;
  readonly scaling: ScalerClient;
  readonly gql: GraphqlClient;
  readonly proxy: HealthProxy;
} {
  const ctx = {} as { s: Stack; scaling: ScalerClient; gql: GraphqlClient; proxy: HealthProxy };
  beforeAll(async () => {
    // Failing health samples are the point of some tests; the SDK need not log each one.
    Runtime.install({
      logger: new DefaultLogger('ERROR'),
      telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' }, forward: {} } },
    });
    ctx.s = await orchestratorStack({
      daemon: async (p) => {
        ctx.proxy = await healthProxy(p.url);
        return { SLUICE_QUEUE_URL: `${ctx.proxy.url}/v2` };
      },
    });
    ctx.scaling = new ScalerClient({ client: ctx.s.env.client, resultsDir: ctx.s.resultsDir });
    ctx.gql = new GraphqlClient({ url: `${ctx.s.platform.url}/graphql`, apiKey: ctx.s.platform.apiKey });
  });
  afterAll(async () => {
    await ctx.gql?.close();
    await ctx.s?.dispose();
    await ctx.proxy?.close();
  });
  return ctx;
}

/** An endpoint of the sleep handler (REQUEST_COUNT 1: one worker per job, up to workersMax). */
export function sleepEndpoint(s: Stack, name: string, bounds: Bounds, idleTimeout = 2): string {
  return addEndpoint(s.platform, {
    name,
    command: exampleCommand('sleep'),
    ...bounds,
    idleTimeout,
    scalerType: 'REQUEST_COUNT',
    scalerValue: 1,
  }).id;
}

/** The endpoint's bounds and version as the GraphQL API shows them. */
export async function boundsOf(gql: GraphqlClient, endpointId: string): Promise<Bounds & { version: number }> {
  const e = (await gql.listEndpoints()).endpoints.find((x) => x.id === endpointId);
  if (!e) throw new Error(`endpoint ${endpointId} not listed`);
  return { workersMin: e.workersMin, workersMax: e.workersMax, version: e.version };
}

/** Submits `n` sleep jobs straight to the platform, all at once; returns their ids. */
export async function submit(s: Stack, endpointId: string, n: number, ms: number): Promise<string[]> {
  const sent = Array.from({ length: n }, () =>
    call(s.platform.url, 'POST', `/v2/${endpointId}/run`, { key: s.platform.apiKey, body: { input: { ms } } }),
  );
  return (await Promise.all(sent)).map((r) => r.body.id as string);
}

/** The endpoint's live worker pods (ids), as the platform counts them. */
export const livePods = (s: Stack, endpointId: string): string[] =>
  s.platform.pool
    .podsOf(endpointId)
    .filter((p) => p.phase !== 'exited' && p.phase !== 'stopping')
    .map((p) => p.id);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * How long a test waits for a state it asserts before it gives up, ms: generous, so that a loaded
 * machine only makes a test slower, never red (a quiet one gets the state in seconds).
 */
export const PATIENCE = 60_000;

/** Waits until the scaler's status satisfies `ok` (running `each` first at every poll); returns that status. */
export async function statusWhen(
  scaling: ScalerClient,
  endpointId: string,
  ok: (st: ScalerState) => boolean,
  ms = PATIENCE,
  each?: () => Promise<void>,
): Promise<ScalerState> {
  return (await eventually(
    async () => {
      await each?.();
      const st = await scaling.status(endpointId);
      return ok(st) ? st : undefined;
    },
    ms,
    100,
  ))!;
}

/**
 * Waits until the scaler's decision log holds a decision matching `ok`; returns it with the status.
 * Wait for this rather than for the platform's bounds: the platform sees a write before the workflow logs it.
 */
export async function decisionWhen(
  scaling: ScalerClient,
  endpointId: string,
  ok: (d: Decision) => boolean,
  ms = PATIENCE,
): Promise<{ decision: Decision; state: ScalerState }> {
  const state = await statusWhen(scaling, endpointId, (st) => st.decisions.some(ok), ms);
  return { decision: state.decisions.find(ok)!, state };
}
