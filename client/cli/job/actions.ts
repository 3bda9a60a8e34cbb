/** What each job command does (commands.ts registers them): `sluice run`, `status`, `cancel`, `result`. */
import { readFileSync } from 'node:fs';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { jobWorkflowId } from '../../../contracts/names/job';
import { failureType } from '../../failures';
import { type JobClient } from '../../job';
import { withExisting } from '../context';
import { assertLookup, connectForEndpoint } from '../endpoint-arg';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';
import { printFailure, printResult, watch } from './watch';
import { exitCodeOfView, phaseLabel } from './output';
import { resolveSettings } from '../settings';

function parseInput(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) throw new UsageError('--input is required (JSON, or @file with JSON)');
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = readFileSync(raw.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${raw.slice(1)}: ${(err as Error).message}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--input is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--input must be a JSON object');
  return value as Record<string, unknown>;
}

export interface RunOptions {
  endpoint?: string;
  input?: string;
  stream?: boolean;
  webhook?: boolean;
  poll?: boolean;
  detach?: boolean;
  json?: boolean;
  id?: string;
  maxAttempts?: number;
  executionTimeout?: number;
  ttl?: number;
  dataDir: string;
}

export async function run(o: RunOptions): Promise<number> {
  if (!o.endpoint) throw new UsageError('--endpoint ID|NAME is required');
  if (o.webhook && o.poll) throw new UsageError('--webhook and --poll exclude each other');
  const input = parseInput(o.input);
  const settings = resolveSettings(o.dataDir);
  assertLookup(settings, o.endpoint);
  const { cli, endpointId } = await connectForEndpoint(o.dataDir, ['job'], settings, o.endpoint);
  try {
    let workflowId: string;
    try {
      workflowId = await cli.job.start({
        ...(o.id ? { id: o.id } : {}),
        endpointId,
        input,
        ...(o.executionTimeout || o.ttl
          ? {
              policy: {
                ...(o.executionTimeout ? { executionTimeout: o.executionTimeout } : {}),
                ...(o.ttl ? { ttl: o.ttl } : {}),
              },
            }
          : {}),
        options: {
          completion: o.poll ? 'poll' : 'webhook',
          stream: o.stream ?? false,
          ...(o.maxAttempts ? { retry: { maxAttempts: o.maxAttempts } } : {}),
        },
      });
    } catch (err) {
      if ((err as { name?: string }).name === 'ZodError')
        throw new UsageError(`invalid job: ${(err as Error).message}`);
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new UsageError(
          `job ${err.workflowId} is still running: an id is reused only after its job ended (sluice status ${err.workflowId})`,
        );
      throw err;
    }
    if (o.detach) {
      console.log(o.json ? JSON.stringify({ workflowId, endpointId }) : workflowId);
      return EXIT_CODES.ok;
    }
    if (!o.json) console.log(`started ${workflowId} on endpoint ${endpointId}`);
    return await watch(cli.job, workflowId, { json: o.json ?? false, stream: o.stream ?? false });
  } finally {
    await cli.close();
  }
}

export interface IdOptions {
  json?: boolean;
  wait?: boolean;
  chunks?: boolean;
  dataDir: string;
}

/** Runs `fn` on an existing job (`no job ID` otherwise, exit 2). */
const withJob = (
  rawId: string,
  o: IdOptions,
  fn: (sluice: JobClient, id: string) => Promise<number>,
): Promise<number> => withExisting(o.dataDir, jobWorkflowId(rawId), 'job', 'job', fn);

export const status = (rawId: string, o: IdOptions) =>
  withJob(rawId, o, async (sluice, id) => {
    const v = await sluice.state(id);
    if (o.json) console.log(JSON.stringify(v));
    else {
      console.log(`job         ${v.workflowId}\nworkflow    ${v.workflowStatus}`);
      if (v.state)
        console.log(
          `phase       ${phaseLabel(v)}\nremote job  ${v.state.remoteJobId ?? '-'} (${v.remote?.status ?? v.state.status ?? '-'})\nattempt     ${v.state.attempt}`,
        );
      if (v.progress !== undefined) console.log(`progress    ${JSON.stringify(v.progress)}`);
      if (v.failure) console.log(`failure     ${v.failure}`);
    }
    return exitCodeOfView(v);
  });

export const cancel = (rawId: string, o: IdOptions) =>
  withJob(rawId, o, async (sluice, id) => {
    const v = await sluice.state(id);
    if (v.workflowStatus !== 'RUNNING') {
      const ended = v.result?.status ?? v.workflowStatus;
      if (o.json) console.log(JSON.stringify({ workflowId: id, status: ended, cancelled: false }));
      else console.error(`sluice: ${id} already ended ${ended}; nothing to cancel`);
      return EXIT_CODES.failed;
    }
    await sluice.cancel(id);
    const outcome = await sluice.result(id).then(
      (r) => r.status,
      (err: unknown) => failureType(err) ?? 'FAILED',
    );
    if (o.json) console.log(JSON.stringify({ workflowId: id, status: outcome }));
    else
      console.log(
        outcome === 'CANCELLED'
          ? `${id}: CANCELLED (the remote job was cancelled)`
          : `${id}: ended ${outcome} before the cancel took effect`,
      );
    return outcome === 'CANCELLED' ? EXIT_CODES.ok : EXIT_CODES.failed;
  });

export const result = (rawId: string, o: IdOptions) =>
  withJob(rawId, o, async (sluice, id) => {
    if (o.chunks) {
      if (o.wait) await sluice.result(id).catch(() => undefined);
      for (const c of await sluice.streamChunks(id))
        console.log(JSON.stringify((c as { output?: unknown } | null)?.output ?? c));
      return EXIT_CODES.ok;
    }
    const v = await sluice.state(id);
    if (v.workflowStatus === 'RUNNING' && !o.wait) {
      if (o.json) console.log(JSON.stringify({ workflowId: id, status: 'RUNNING' }));
      else
        console.log(
          `${id} is still running (${v.state ? phaseLabel(v) : 'running'}); sluice result ${id} --wait waits for it`,
        );
      return EXIT_CODES.running;
    }
    try {
      return await printResult(sluice, id, await sluice.result(id), o.json ?? false);
    } catch (err) {
      return printFailure(id, err, o.json ?? false);
    }
  });
