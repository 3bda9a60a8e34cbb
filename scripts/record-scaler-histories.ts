/**
 * Records the scaler workflow's histories that test/workflows/replay.test.ts replays
 * (`npm run histories:record:scaler [-- --only name,...] [--force]`). Existing files are never
 * overwritten unless `--force` is given.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { BatchClient } from '../client/batch';
import { ScalerClient } from '../client/scaler';
import { scalerWorkflowId, type ScalerOptionsInput } from '../contracts';
import { GraphqlClient } from '../platform-api';
import { orchestratorStack } from '../test/helpers/orchestrator';
import { addEndpoint, call, eventually, exampleCommand } from '../test/helpers/platform';
import { healthProxy, type HealthProxy } from '../test/scaler/health-proxy';
import { historyToJSON } from '../test/workflows/history-json';

const outDir = join(__dirname, '..', 'test', 'workflows', 'histories', 'scaler');
type Stack = Awaited<ReturnType<typeof orchestratorStack>>;
interface Ctx {
  s: Stack;
  scaler: ScalerClient;
  gql: GraphqlClient;
  proxy: HealthProxy;
  ep: string;
}

const quick: ScalerOptionsInput = {
  intervalMs: 300,
  stabilizationWindowMs: 1500,
  cooldownMs: 2500,
  minWriteGapMs: 500,
  ceiling: 4,
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const ticks = async (c: Ctx, n: number) => {
  const from = (await c.scaler.status(c.ep)).ticks;
  await eventually(async () => (await c.scaler.status(c.ep)).ticks >= from + n, 20_000);
};
const jobs = async (c: Ctx, n: number, ms: number) => {
  for (let i = 0; i < n; i++)
    await call(c.s.platform.url, 'POST', `/v2/${c.ep}/run`, { key: c.s.platform.apiKey, body: { input: { ms } } });
};

/** One representative run: its config, what happens during it (it is stopped at the end), and the decision kinds it must show. */
interface Scenario {
  name: string;
  config: ScalerOptionsInput;
  during(c: Ctx): Promise<void>;
  expect: string[];
}

const scenarios: Scenario[] = [
  {
    name: 'burst-quiet-stopped',
    config: quick,
    during: async (c) => {
      await ticks(c, 1);
      await jobs(c, 4, 800);
      await eventually(
        async () => (await c.scaler.status(c.ep)).decisions.some((d) => d.kind === 'deactivate'),
        20_000,
      );
    },
    expect: ['start', 'activate', 'scale-down', 'deactivate', 'restore'],
  },
  {
    // warmHoldMs 0 (the cost mode): workersMin stays at the floor, workersMax carries the target.
    name: 'burst-quiet-warm-hold',
    config: { ...quick, warmHoldMs: 0 },
    during: async (c) => {
      await ticks(c, 1);
      await jobs(c, 4, 800);
      await eventually(
        async () => (await c.scaler.status(c.ep)).decisions.some((d) => d.kind === 'deactivate'),
        20_000,
      );
    },
    expect: ['start', 'activate', 'scale-down', 'deactivate', 'restore'],
  },
  {
    name: 'messages',
    config: quick,
    during: async (c) => {
      await ticks(c, 1);
      await c.scaler.override(c.ep, { workersMin: 2, workersMax: 3, forMs: 60_000 });
      await ticks(c, 1);
      await c.scaler.clearOverride(c.ep);
      await c.scaler.pause(c.ep);
      await ticks(c, 1);
      if ((await c.scaler.status(c.ep)).decisions.at(-1)?.kind !== 'paused')
        throw new Error('messages: the scaler did not pause');
      await c.scaler.resume(c.ep);
      await c.scaler.configure(c.ep, { headroom: 2, maxSpendPerHour: 100 });
      await c.scaler.setWindow(c.ep, { floor: 1, ceiling: 3, until: Date.now() + 1000, source: 'replay' });
      await c.scaler.reportBacklog(c.ep, {
        source: 'batch/replay',
        remaining: 20,
        jobMs: 500,
        deadline: Date.now() + 5000,
      });
      await c.scaler.reportBacklog(c.ep, { source: 'batch/replay', remaining: 0, jobMs: 500 }, { wait: false });
      await c.scaler.override(c.ep, { workersMin: 1, workersMax: 1, forMs: 1000 });
      await ticks(c, 2);
    },
    expect: ['start', 'override', 'restore'],
  },
  {
    name: 'continued-as-new',
    config: { ...quick, ticksPerRun: 3 },
    during: async (c) => {
      await eventually(async () => (await c.scaler.status(c.ep)).runs >= 3, 20_000);
    },
    expect: ['start', 'restore'],
  },
  {
    name: 'fallback',
    config: { ...quick, fallback: { failureThreshold: 2, mode: 'bounds', workersMin: 1, workersMax: 2 } },
    during: async (c) => {
      await ticks(c, 1);
      c.proxy.failing = true;
      try {
        await eventually(async () => (await c.scaler.status(c.ep)).fallbackActive, 20_000);
      } finally {
        c.proxy.failing = false;
      }
      await eventually(async () => !(await c.scaler.status(c.ep)).fallbackActive, 20_000);
    },
    expect: ['start', 'fallback', 'restore'],
  },
  {
    name: 'drift-reassert',
    config: quick,
    during: async (c) => {
      await ticks(c, 2);
      await c.gql.saveEndpoint({ id: c.ep, workersMin: 0, workersMax: 3 });
      await eventually(
        async () => (await c.scaler.status(c.ep)).decisions.some((d) => d.kind === 'drift-reassert'),
        20_000,
      );
    },
    expect: ['start', 'drift-reassert', 'restore'],
  },
  {
    name: 'backlog-pulled',
    config: { ...quick, backlogScanMs: 500 },
    during: async (c) => {
      await ticks(c, 1);
      const dir = mkdtempSync(join(tmpdir(), 'sluice-replay-batch-'));
      writeFileSync(join(dir, 'in.jsonl'), Array.from({ length: 12 }, () => '{"input":{"ms":300}}\n').join(''));
      const batch = new BatchClient({ client: c.s.env.client, resultsDir: c.s.resultsDir });
      const id = await batch.start({
        endpointId: c.ep,
        source: join(dir, 'in.jsonl'),
        outDir: dir,
        options: { concurrency: 4, deadline: Date.now() + 20_000 },
      });
      await eventually(
        async () => (await c.scaler.status(c.ep)).backlogs.some((b) => b.pulled && b.jobMs !== undefined),
        20_000,
      );
      await batch.result(id);
      await eventually(async () => (await c.scaler.status(c.ep)).backlogs.length === 0, 20_000);
      await ticks(c, 2);
    },
    expect: ['start', 'activate', 'restore'],
  },
];

async function record(c: Ctx, sc: Scenario): Promise<[string, string][]> {
  const wid = await c.scaler.start(c.ep, sc.config);
  await sc.during(c);
  const last = await c.scaler.stop(c.ep);
  const kinds = new Set(last?.decisions.map((d) => d.kind));
  const missing = sc.expect.filter((k) => !kinds.has(k as never));
  if (missing.length > 0)
    throw new Error(`${sc.name}: no ${missing.join(', ')} decision (got ${[...kinds].join(', ')})`);
  const files: [string, string][] = [];
  const d = await c.s.env.client.workflow.getHandle(wid).describe();
  let runId: string | undefined = d.raw.workflowExecutionInfo?.firstRunId || d.runId;
  for (let n = 1; runId && n <= 2; n++) {
    const history = await c.s.env.client.workflow.getHandle(wid, runId).fetchHistory();
    files.push([`${sc.name}${n > 1 ? `.run${n}` : ''}.json`, `${historyToJSON(history)}\n`]);
    runId = history.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return files;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : undefined;
  const chosen = scenarios.filter((sc) => !only || only.includes(sc.name));
  if (chosen.length === 0)
    throw new Error(`no scenario named ${only?.join(', ')}; known: ${scenarios.map((x) => x.name).join(', ')}`);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  let proxy: HealthProxy | undefined;
  const s = await orchestratorStack({
    daemon: async (p) => {
      proxy = await healthProxy(p.url);
      return { SLUICE_QUEUE_URL: `${proxy.url}/v2` };
    },
  });
  const gql = new GraphqlClient({ url: `${s.platform.url}/graphql`, apiKey: s.platform.apiKey });
  try {
    const scaling = new ScalerClient({ client: s.env.client, resultsDir: s.resultsDir });
    mkdirSync(outDir, { recursive: true });
    for (const sc of chosen) {
      const ep = addEndpoint(s.platform, {
        name: `replay-${sc.name}`,
        command: exampleCommand('sleep'),
        workersMin: 0,
        workersMax: 1,
        idleTimeout: 1,
      }).id;
      const files = await record({ s, scaler: scaling, gql, proxy: proxy!, ep }, sc);
      for (const [f, json] of files) {
        if (existsSync(join(outDir, f)) && !force) console.log(`${f}: exists, kept (--force replaces it)`);
        else writeFileSync(join(outDir, f), json);
      }
      console.log(`${sc.name}: ${files.length} run(s) of ${scalerWorkflowId(ep)}`);
      await sleep(100);
    }
  } finally {
    await gql.close();
    await s.dispose();
    await proxy?.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
