/** `sluice pipeline start FILE INPUTS.jsonl`: validates the definition, resolves its endpoints, starts the pipeline, then watches it (unless --detach). */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { pipelineIdOf, pipelineWorkflowId } from '../../../contracts';
import { connectCli } from '../context';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';
import { endpointArg } from '../endpoint-arg';
import { resolveSettings } from '../settings';
import { watchPipeline, type WatchFlags } from './actions';
import { readPipelineSource } from './source';
import { formatIssue, validateText } from './validate';

export interface PipelineStartOptions extends WatchFlags {
  id?: string;
  out?: string;
  detach?: boolean;
}

export async function startCommand(file: string, inputs: string, o: PipelineStartOptions): Promise<number> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new UsageError(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  });
  const v = validateText(text);
  if (!v.ok) {
    console.error(`sluice: ${file}: ${v.issues.length} error${v.issues.length === 1 ? '' : 's'}`);
    for (const i of v.issues) console.error(`  ${formatIssue(i)}`);
    return EXIT_CODES.usage;
  }
  const settings = resolveSettings(o.dataDir);
  const id = pipelineIdOf(pipelineWorkflowId(o.id ?? randomUUID()));
  const outDir = o.out ?? join(o.dataDir, 'pipelines', id);
  const cli = await connectCli(o.dataDir, ['pipeline', 'service'], settings);
  try {
    const workflowId = await cli.pipeline
      .start({
        definition: readPipelineSource(text).value as never,
        source: inputs,
        outDir,
        id,
        resolveEndpoint: (nameOrId) => endpointArg(cli, nameOrId),
      })
      .catch((err: unknown) => {
        if (err instanceof WorkflowExecutionAlreadyStartedError)
          throw new UsageError(`${pipelineWorkflowId(id)} already exists (an id is used once: pick another --id)`);
        if (err instanceof Error && /not found$/.test(err.message)) throw new UsageError(err.message);
        throw err;
      });
    if (o.detach) {
      console.log(o.json ? JSON.stringify({ workflowId, outDir }) : workflowId);
      return EXIT_CODES.ok;
    }
    if (!o.json)
      console.log(
        `started ${workflowId} (${v.name}: ${v.stages.join(' → ')}); results in ${outDir}\n(Ctrl-C stops watching, not the pipeline)`,
      );
    return await watchPipeline(cli.pipeline, workflowId, { json: o.json ?? false, intervalMs: o.interval * 1000 });
  } finally {
    await cli.close();
  }
}
