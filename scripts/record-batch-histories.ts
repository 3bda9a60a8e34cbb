/**
 * Records the batch workflow's histories that test/workflows/replay.test.ts replays (`npm run
 * histories:record`; `tsx scripts/record-batch-histories.ts --only retry-failed` records only the
 * scenarios named). A history file that exists is never overwritten: it is what shipped code did.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { BatchClient, type BatchStart } from '../client/batch';
import { failureType } from '../client/failures';
import { orchestratorStack } from '../test/helpers/orchestrator';
import { addEndpoint, eventually, exampleCommand } from '../test/helpers/platform';
import { historyToJSON } from '../test/workflows/history-json';

const outDir = join(__dirname, '..', 'test', 'workflows', 'histories', 'batch');
type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

interface Scenario {
  name: string;
  lines: (dir: string) => (object | string)[];
  options: BatchStart['options'];
  during?(batch: BatchClient, id: string): Promise<void>;
  /** Run retry-failed once the batch ends and record that run (the latest of the batch id). */
  retryFailed?: boolean;
  /** What it must end as: the outcome counts, or the failure type. */
  expect: string;
}

const scenarios: Scenario[] = [
  {
    name: 'mixed',
    lines: (dir) =>
      Array.from({ length: 40 }, (_, i) =>
        i === 3
          ? '{broken'
          : i % 10 === 1
            ? { kind: 'fail', message: `no ${i}` }
            : i % 10 === 2
              ? { input: { kind: 'flaky', failTimes: 1, counterFile: join(dir, `c${i}`) } }
              : { kind: 'echo', i },
      ),
    options: { concurrency: 8, retry: { maxAttempts: 2, initialBackoffMs: 50 } },
    expect: 'BAD_INPUT:1 COMPLETED:35 FAILED:4',
  },
  {
    name: 'continued-as-new',
    lines: () => Array.from({ length: 30 }, (_, i) => ({ kind: 'sleep', ms: 20, i })),
    options: { concurrency: 4, stepsPerRun: 3 },
    expect: 'COMPLETED:30',
  },
  {
    // Since patched('batch-detached-submissions'): steps may hand unanswered submissions on; carried across continue-as-new.
    name: 'detached-submissions',
    lines: () => Array.from({ length: 30 }, (_, i) => ({ kind: 'sleep', ms: 20, i })),
    options: { concurrency: 6, stepsPerRun: 4 },
    expect: 'COMPLETED:30',
  },
  {
    name: 'paused-resumed',
    lines: () => Array.from({ length: 30 }, (_, i) => ({ kind: 'sleep', ms: 50, i })),
    options: { concurrency: 3 },
    during: async (batch, id) => {
      await eventually(async () => (await batch.state(id)).counts.done >= 5, 20_000);
      await batch.pause(id);
      await batch.configure(id, { concurrency: 5 });
      await batch.resume(id);
    },
    expect: 'COMPLETED:30',
  },
  {
    name: 'key-capped',
    lines: () => Array.from({ length: 24 }, (_, i) => ({ kind: 'sleep', ms: 30, tenant: `t${i % 3}` })),
    options: { concurrency: 8, keyPath: '$.tenant', keyLimit: 1 },
    expect: 'COMPLETED:24',
  },
  {
    name: 'cancelled',
    lines: () => Array.from({ length: 20 }, () => ({ kind: 'sleep', ms: 10_000 })),
    options: { concurrency: 3 },
    during: async (batch, id) => {
      await eventually(async () => (await batch.state(id)).counts.inFlight === 3, 20_000);
      await batch.cancel(id);
    },
    expect: 'CANCELLED',
  },
  {
    name: 'per-job-workflows',
    lines: (dir) =>
      Array.from({ length: 20 }, (_, i) =>
        i === 4
          ? '[1]'
          : i % 7 === 2
            ? { kind: 'fail', message: `no ${i}` }
            : i % 7 === 3
              ? { input: { kind: 'flaky', failTimes: 1, counterFile: join(dir, `c${i}`) } }
              : { kind: 'echo', i },
      ),
    options: {
      perJobWorkflows: true,
      concurrency: 4,
      childrenPerRun: 12,
      retry: { maxAttempts: 2, initialBackoffMs: 50 },
    },
    expect: 'BAD_INPUT:1 COMPLETED:16 FAILED:3',
  },
  {
    name: 'per-job-retry-failed',
    lines: (dir) =>
      Array.from({ length: 10 }, (_, i) =>
        i === 3
          ? { kind: 'fail', message: 'no 3' }
          : i % 4 === 1
            ? { input: { kind: 'flaky', failTimes: 1, counterFile: join(dir, `c${i}`) } }
            : { kind: 'echo', i },
      ),
    options: { perJobWorkflows: true, concurrency: 3, retry: { maxAttempts: 1 } },
    retryFailed: true,
    expect: 'COMPLETED:9 FAILED:1',
  },
  {
    name: 'retry-failed',
    lines: (dir) =>
      Array.from({ length: 20 }, (_, i) =>
        i === 3
          ? { kind: 'fail', message: 'no 3' }
          : i % 5 === 1
            ? { input: { kind: 'flaky', failTimes: 1, counterFile: join(dir, `c${i}`) } }
            : { kind: 'echo', i },
      ),
    options: { concurrency: 4, retry: { maxAttempts: 1 } },
    retryFailed: true,
    expect: 'COMPLETED:19 FAILED:1',
  },
];

async function record(
  s: Stack,
  batch: BatchClient,
  endpointId: string,
  work: string,
  sc: Scenario,
): Promise<{ files: [string, string][]; line: string }> {
  const dir = join(work, sc.name);
  mkdirSync(dir, { recursive: true });
  const source = join(dir, 'in.jsonl');
  writeFileSync(
    source,
    sc
      .lines(dir)
      .map((l) => (typeof l === 'string' ? l : JSON.stringify(l)))
      .join('\n') + '\n',
  );
  const id = await batch.start({
    id: `history-${sc.name}-${Date.now()}`,
    endpointId,
    source,
    outDir: join(dir, 'out'),
    options: sc.options,
  });
  await sc.during?.(batch, id);
  if (sc.retryFailed) {
    await batch.result(id);
    await batch.rerunFailed(id);
  }
  const got = await batch.result(id).then(
    (r) =>
      Object.entries(r.counts.byStatus)
        .sort()
        .map(([k, v]) => `${k}:${v}`)
        .join(' '),
    (err: unknown) => failureType(err) ?? String(err),
  );
  if (got !== sc.expect) throw new Error(`${sc.name}: expected ${sc.expect}, got ${got}`);
  // Every run of the chain (continue-as-new), first to last.
  const files: [string, string][] = [];
  const d = await s.env.client.workflow.getHandle(id).describe();
  let runId: string | undefined = d.raw.workflowExecutionInfo?.firstRunId || d.runId;
  for (let n = 1; runId; n++) {
    const history = await s.env.client.workflow.getHandle(id, runId).fetchHistory();
    files.push([`${sc.name}${n > 1 ? `.run${n}` : ''}.json`, `${historyToJSON(history)}\n`]);
    const last = history.events?.at(-1);
    runId = last?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
    if (n >= 3) break;
  }
  return { files, line: `${sc.name}: ${files.length} run(s) (${got})` };
}

async function main(): Promise<void> {
  const only = onlyArg();
  const unknown = only?.filter((n) => !scenarios.some((sc) => sc.name === n)) ?? [];
  if (unknown.length > 0)
    throw new Error(`no scenario ${unknown.join(', ')}; there are ${scenarios.map((sc) => sc.name).join(', ')}`);
  const chosen = only ? scenarios.filter((sc) => only.includes(sc.name)) : scenarios;
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const work = mkdtempSync(join(tmpdir(), 'sluice-batch-histories-'));
  const s = await orchestratorStack();
  const stop = () => void s.dispose().finally(() => process.exit(130));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const endpointId = addEndpoint(s.platform, {
      name: 'mixed',
      command: exampleCommand('mixed'),
      workersMin: 2,
      workersMax: 4,
    }).id;
    const batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir });
    const runs = await Promise.allSettled(chosen.map((sc) => record(s, batch, endpointId, work, sc)));
    for (const r of runs) console.log(r.status === 'fulfilled' ? r.value.line : `FAILED ${String(r.reason)}`);
    if (runs.some((r) => r.status === 'rejected')) {
      process.exitCode = 1;
      return;
    }
    mkdirSync(outDir, { recursive: true });
    for (const r of runs) {
      if (r.status !== 'fulfilled') continue;
      for (const [f, json] of r.value.files) {
        if (existsSync(join(outDir, f)))
          console.log(`${f}: kept (a recorded history is never overwritten; delete it first to record it again)`);
        else writeFileSync(join(outDir, f), json);
      }
    }
  } finally {
    await s.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

/** `--only a,b` (or `--only a --only b`): the scenarios to record; all without it. */
function onlyArg(): string[] | undefined {
  const names: string[] = [];
  process.argv.slice(2).forEach((a, i, all) => {
    if (a === '--only' && all[i + 1]) names.push(...all[i + 1]!.split(','));
    else if (a.startsWith('--only=')) names.push(...a.slice('--only='.length).split(','));
  });
  return names.length > 0 ? names : undefined;
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
