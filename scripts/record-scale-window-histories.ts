/**
 * Records the histories of the workflow a scale schedule starts (scaleWindowWorkflow) that
 * test/workflows/replay.test.ts replays: `window` (a scaler runs: its window is set) and `bounds`
 * (none runs: the bounds are written). `npm run histories:record:scale-window [-- --only name,...] [--force]`;
 * existing files are never overwritten unless `--force` is given.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ScalerClient } from '../client/scaler';
import { type ScaleWindowResult } from '../contracts';
import { orchestratorStack } from '../test/helpers/orchestrator';
import { addEndpoint, eventually, exampleCommand } from '../test/helpers/platform';
import { historyToJSON } from '../test/workflows/history-json';

const outDir = join(__dirname, '..', 'test', 'workflows', 'histories', 'scale-window');
const scenarios = [
  { name: 'window', scaler: true, applied: 'window' },
  { name: 'bounds', scaler: false, applied: 'bounds' },
] as const;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1]!.split(',') : undefined;
  const chosen = scenarios.filter((sc) => !only || only.includes(sc.name));
  if (chosen.length === 0)
    throw new Error(`no scenario named ${only?.join(', ')}; known: ${scenarios.map((x) => x.name).join(', ')}`);
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const s = await orchestratorStack();
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
      if (sc.scaler) {
        await scaling.start(ep, { intervalMs: 300 });
        await eventually(async () => (await scaling.status(ep)).ticks >= 1, 20_000);
      }
      // A schedule that would fire at 03:00, fired now by hand.
      const v = await scaling.schedules.add({ endpointId: ep, at: '03:00', min: 1, max: 3, forMs: 60_000 });
      await s.env.client.schedule.getHandle(v.scheduleId).trigger();
      const fired = (await eventually(
        async () => (await scaling.schedules.get(ep, v.name)).recent.at(-1),
        20_000,
        100,
      ))!;
      const handle = s.env.client.workflow.getHandle(fired.workflowId);
      const result = (await handle.result()) as ScaleWindowResult;
      if (result.applied !== sc.applied)
        throw new Error(`${sc.name}: applied ${result.applied}, expected ${sc.applied}`);
      const file = `${sc.name}.json`;
      if (existsSync(join(outDir, file)) && !force) console.log(`${file}: exists, kept (--force replaces it)`);
      else writeFileSync(join(outDir, file), `${historyToJSON(await handle.fetchHistory())}\n`);
      console.log(`${sc.name}: ${fired.workflowId} applied ${result.applied}`);
      await scaling.schedules.delete(ep, v.name);
      if (sc.scaler) await scaling.stop(ep);
    }
  } finally {
    await s.dispose();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
