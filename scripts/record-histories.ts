/** Records the job workflow's histories that test/workflows/replay.test.ts replays (`npm run histories:record`). */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WorkflowFailedError } from '@temporalio/client';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { failureType } from '../client/failures';
import type { JobWorkflowInputInit, JobWorkflowResult } from '../contracts';
import { orchestratorStack } from '../test/helpers/orchestrator';
import { addEndpoint, eventually } from '../test/helpers/platform';
import { historyToJSON } from '../test/workflows/history-json';

const outDir = join(__dirname, '..', 'test', 'workflows', 'histories', 'job');
type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

/** One representative run: how to start it, and what it must end as to be worth recording. */
interface Scenario {
  name: string;
  start(s: Stack, ids: Ids): JobWorkflowInputInit;
  /** Acts on the running workflow (e.g. cancels it). */
  during?(s: Stack, workflowId: string): Promise<void>;
  /** The result's status and attempts (`how:status`), or the failure type. */
  expect: string;
}
interface Ids {
  parked: string;
  counter(): string;
}

const scenarios: Scenario[] = [
  {
    name: 'webhook-completed',
    start: (s) => ({ endpointId: s.platform.examples.echo!.id, input: { hello: 'replay' } }),
    expect: 'COMPLETED submit:COMPLETED',
  },
  {
    name: 'poll-completed',
    start: (s) => ({
      endpointId: s.platform.examples.sleep!.id,
      input: { ms: 1500 },
      options: { completion: 'poll', polling: { initialIntervalMs: 200 } },
    }),
    expect: 'COMPLETED submit:COMPLETED',
  },
  {
    name: 'runsync-completed',
    start: (s) => ({ endpointId: s.platform.examples.echo!.id, input: { quick: true }, options: { syncWaitMs: 5000 } }),
    expect: 'COMPLETED submit:COMPLETED',
  },
  {
    name: 'stream-completed',
    start: (s) => ({
      endpointId: s.platform.examples.stream!.id,
      input: { chunks: 5, delayMs: 50 },
      options: { stream: true },
    }),
    expect: 'COMPLETED submit:COMPLETED',
  },
  {
    name: 'flaky-retried',
    start: (s, ids) => ({
      endpointId: s.platform.examples.flaky!.id,
      input: { counterFile: ids.counter(), failTimes: 1 },
      options: { retry: { initialBackoffMs: 100 } },
    }),
    expect: 'COMPLETED submit:FAILED retry:COMPLETED',
  },
  {
    // The platform keeps results 3 s, the backoff waits 4 s: `/retry` is refused and the job resubmitted.
    name: 'retry-refused-resubmitted',
    start: (s, ids) => ({
      endpointId: s.platform.examples.flaky!.id,
      input: { counterFile: ids.counter(), failTimes: 1 },
      options: { retry: { initialBackoffMs: 4000 } },
    }),
    expect: 'COMPLETED submit:FAILED resubmit:COMPLETED',
  },
  {
    name: 'all-attempts-failed',
    start: (s, ids) => ({
      endpointId: s.platform.examples.flaky!.id,
      input: { counterFile: ids.counter(), failTimes: 5 },
      options: { retry: { maxAttempts: 3, initialBackoffMs: 100 } },
    }),
    expect: 'FAILED submit:FAILED retry:FAILED retry:FAILED',
  },
  {
    name: 'cancelled-queued',
    start: (_s, ids) => ({ endpointId: ids.parked, input: { q: 1 } }),
    async during(s, id) {
      await eventually(async () => (await s.sluice.state(id)).state?.phase === 'waiting');
      await s.sluice.cancel(id);
    },
    expect: 'CANCELLED',
  },
  {
    name: 'endpoint-not-found',
    start: () => ({ endpointId: 'nosuchendpoint', input: {} }),
    expect: 'ENDPOINT_NOT_FOUND',
  },
];

const summary = (r: JobWorkflowResult) => [r.status, ...r.attempts.map((a) => `${a.how}:${a.status}`)].join(' ');

async function record(s: Stack, ids: Ids, sc: Scenario): Promise<{ file: string; json: string; line: string }> {
  const id = await s.sluice.start({ ...sc.start(s, ids), id: `history-${sc.name}` });
  await sc.during?.(s, id);
  const got = await s.sluice.result(id).then(summary, (err: unknown) => {
    if (err instanceof WorkflowFailedError) return failureType(err) ?? String(err);
    throw err;
  });
  if (got !== sc.expect) throw new Error(`${sc.name}: expected ${sc.expect}, got ${got}`);
  const history = await s.env.client.workflow.getHandle(id).fetchHistory();
  return {
    file: `${sc.name}.json`,
    json: `${historyToJSON(history)}\n`,
    line: `${sc.name}: ${history.events?.length} events (${got})`,
  };
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const counters = mkdtempSync(join(tmpdir(), 'sluice-histories-'));
  let n = 0;
  const s = await orchestratorStack({ platform: { retentionAsyncMs: 3000 } });
  const stop = () => void s.dispose().finally(() => process.exit(130));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const ids: Ids = {
      parked: addEndpoint(s.platform, { name: 'parked', command: ['false'], workersMax: 0 }).id,
      counter: () => join(counters, `count-${n++}`),
    };
    // Every run settles before the stack stops, failed or not; files are written only if all passed.
    const runs = await Promise.allSettled(scenarios.map((sc) => record(s, ids, sc)));
    for (const r of runs) console.log(r.status === 'fulfilled' ? r.value.line : `FAILED ${String(r.reason)}`);
    if (runs.some((r) => r.status === 'rejected')) {
      process.exitCode = 1;
      return;
    }
    // Other files in the folder (histories kept for an older, patched branch) stay.
    mkdirSync(outDir, { recursive: true });
    for (const r of runs) if (r.status === 'fulfilled') writeFileSync(join(outDir, r.value.file), r.value.json);
  } finally {
    await s.dispose();
    rmSync(counters, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
