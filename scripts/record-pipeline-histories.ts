/**
 * Records the pipeline workflow's history and its stages' batch histories (batches on an open feed)
 * that test/workflows/replay.test.ts replays (`npm run histories:record:pipeline`). A history file
 * that exists is never overwritten: it is what shipped code did.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { PipelineClient } from '../client/pipeline';
import { orchestratorStack } from '../test/helpers/orchestrator';
import { addEndpoint, exampleCommand } from '../test/helpers/platform';
import { historyToJSON } from '../test/workflows/history-json';

const outDir = join(__dirname, '..', 'test', 'workflows', 'histories', 'pipeline');
/** The newest recording's name (`fan-out-when`: steps of one round signalled by the workflow; `rounds`: steps of rounds that tell the stages themselves). */
const NAME = 'rounds';

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const work = mkdtempSync(join(tmpdir(), 'sluice-pipeline-histories-'));
  const s = await orchestratorStack();
  const stop = () => void s.dispose().finally(() => process.exit(130));
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const ep = addEndpoint(s.platform, {
      name: 'mixed',
      command: exampleCommand('mixed'),
      workersMin: 1,
      workersMax: 2,
    }).id;
    const source = join(work, 'in.jsonl');
    const lines = Array.from({ length: 12 }, (_, i) =>
      JSON.stringify({ i, go: i % 3 !== 0, parts: ['a', 'b'].slice(0, 1 + (i % 2)) }),
    );
    writeFileSync(source, `${lines.join('\n')}\n`);
    const pipeline = new PipelineClient({ client: s.env.client, resultsDir: s.resultsDir });
    const id = await pipeline.start({
      id: NAME,
      definition: {
        name: NAME,
        maxInFlight: 4,
        stages: [
          { name: 'parts', endpoint: ep, each: '$.input.parts', input: "{ 'kind': 'echo', 'part': $item }" },
          {
            name: 'joined',
            endpoint: ep,
            when: '$.input.go',
            input: "{ 'kind': 'echo', 'text': $join($.parts.output.part) }",
          },
        ],
      },
      source,
      outDir: join(work, 'out'),
    });
    const summary = await pipeline.result(id);
    const got = JSON.stringify(summary.counts.byStatus);
    if (got !== JSON.stringify({ SKIPPED: 4, COMPLETED: 8 }) && got !== JSON.stringify({ COMPLETED: 8, SKIPPED: 4 }))
      throw new Error(`unexpected outcomes ${got}`);
    const files: [string, string][] = [
      [`${NAME}.json`, `${historyToJSON(await s.env.client.workflow.getHandle(id).fetchHistory())}\n`],
    ];
    for (const st of summary.stages) {
      const name = st.name;
      files.push([
        `${NAME}.stage-${name}.json`,
        `${historyToJSON(await s.env.client.workflow.getHandle(st.batchId).fetchHistory())}\n`,
      ]);
    }
    mkdirSync(outDir, { recursive: true });
    for (const [f, json] of files) {
      if (existsSync(join(outDir, f))) console.log(`${f}: kept (a recorded history is never overwritten)`);
      else writeFileSync(join(outDir, f), json);
    }
    console.log(`${NAME}: ${files.length} histories (${got})`);
  } finally {
    await s.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
