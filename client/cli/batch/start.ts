/** `sluice batch start`: checks the options and the input before anything starts (the schemas' check during the endpoint's lookup), starts the batch, then watches it (unless --detach). */
import { randomUUID } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type BatchOptionsInput } from '../../../contracts/batch';
import { batchIdOf } from '../../../contracts/names/batch';
import { batchInput, isS3Location } from '../../../results/batch/locations';
import { batchLocationRefusal, batchRoots } from '../../../results/batch/roots';
import { isStoreError } from '../../../results/errors';
import { resultsUrlOf } from '../../../config/settings';
import { parseS3Url } from '../../../results/store/s3-url';
import { watchOptions, type WatchFlags } from './parse';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';
import { assertLookup } from '../endpoint-arg';
import { resolveSettings } from '../settings';
import { batchStarter } from './starter';

export interface StartOptions extends WatchFlags {
  endpoint?: string;
  id?: string;
  concurrency?: number;
  out?: string;
  key?: string;
  keyLimit?: number;
  maxCost?: number;
  pricePerHour?: number;
  deadline?: number;
  priority?: number;
  maxAttempts?: number;
  inputFormat?: 'auto' | 'body' | 'bare';
  poll?: boolean;
  /** `--per-job`; `perJobWorkflows` is its former name, `--per-job-workflows` (hidden, still accepted). */
  perJob?: boolean;
  perJobWorkflows?: boolean;
  detach?: boolean;
}

/** The option behind each batch option, for messages. */
const FLAGS: Record<string, string> = {
  concurrency: '--concurrency',
  keyPath: '--key',
  keyLimit: '--key-limit',
  maxCost: '--max-cost',
  pricePerHour: '--price-per-hour',
  deadline: '--deadline',
  priority: '--priority',
  retry: '--max-attempts',
};

/** The batch options of `start`, checked by their schema (zod loads here: issue 23, while the endpoint is looked up). */
async function batchOptionsOf(o: StartOptions): Promise<BatchOptionsInput> {
  const options: BatchOptionsInput = {
    ...(o.concurrency ? { concurrency: o.concurrency } : {}),
    ...(o.key ? { keyPath: o.key } : {}),
    ...(o.keyLimit ? { keyLimit: o.keyLimit } : {}),
    ...(o.maxCost ? { maxCost: o.maxCost } : {}),
    ...(o.pricePerHour !== undefined ? { pricePerHour: o.pricePerHour } : {}),
    ...(o.deadline ? { deadline: o.deadline } : {}),
    ...(o.priority !== undefined ? { priority: o.priority } : {}),
    ...(o.maxAttempts ? { retry: { maxAttempts: o.maxAttempts } } : {}),
    ...(o.inputFormat ? { inputFormat: o.inputFormat } : {}),
    ...(o.poll ? { completion: 'poll' as const } : {}),
    ...(o.perJob || o.perJobWorkflows ? { perJobWorkflows: true } : {}),
  };
  const { BatchOptions } = await import('../../../contracts/batch');
  const checked = BatchOptions.safeParse(options);
  if (!checked.success)
    throw new UsageError(
      `invalid batch options: ${checked.error.issues.map((i) => `${FLAGS[String(i.path[0])] ?? String(i.path[0])}: ${i.message}`).join('; ')}`,
    );
  return options;
}

export async function start(file: string, o: StartOptions): Promise<number> {
  if (!o.endpoint) throw new UsageError('--endpoint ID|NAME is required');
  await assertInput(file);
  if (o.out !== undefined) s3Location(o.out, '--out');
  if (o.keyLimit !== undefined && !o.key)
    throw new UsageError('--key-limit needs --key PATH (the JSON path whose values it caps, e.g. $.tenant)');
  const settings = resolveSettings(o.dataDir);
  try {
    assertLookup(settings, o.endpoint);
  } catch (err) {
    await batchOptionsOf(o); // a bad option is the first error, as when it was checked before anything else
    throw err;
  }
  const batchId = batchIdOf(o.id ?? randomUUID());
  const outDir =
    o.out !== undefined && isS3Location(o.out) ? o.out : resolve(o.out ?? join(settings.dataDir, 'batches', batchId));
  // The daemon refuses locations outside its roots; with SLUICE_BATCH_ROOTS set here, say so before starting.
  const roots = settings.config.SLUICE_BATCH_ROOTS;
  const refusal =
    roots && batchLocationRefusal({ source: file, outDir }, batchRoots(roots, resultsUrlOf(settings.config)));
  if (refusal) throw new UsageError(refusal);
  let options: BatchOptionsInput = {};
  const { batch, endpointId, close } = await batchStarter(settings, o.dataDir, o.endpoint, async () => {
    options = await batchOptionsOf(o);
  });
  try {
    const workflowId = await batch.start({ id: batchId, endpointId, source: file, outDir, options });
    if (o.detach) {
      console.log(o.json ? JSON.stringify({ workflowId, endpointId, outDir }) : workflowId);
      return EXIT_CODES.ok;
    }
    if (!o.json)
      console.log(
        `started ${workflowId} on endpoint ${endpointId}; results in ${outDir}\n(Ctrl-C stops watching, not the batch)`,
      );
    return await (await import('./progress')).watchBatch(batch, workflowId, watchOptions(o));
  } finally {
    await close();
  }
}

/** A bad s3:// URL (or another scheme's) is a usage error naming the option. */
function s3Location(url: string, what: string): void {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) && !isS3Location(url))
    throw new UsageError(`${what}: unsupported URL ${JSON.stringify(url)} (a local path or s3://bucket/prefix)`);
  if (!isS3Location(url)) return;
  try {
    parseS3Url(url);
  } catch (err) {
    throw new UsageError(`${what}: ${(err as Error).message}`);
  }
}

/** The input must exist before the batch starts: a local file, or an `s3://bucket/key` object (AWS variables of this process). */
async function assertInput(file: string): Promise<void> {
  s3Location(file, 'input');
  if (!isS3Location(file)) {
    if (!existsSync(file) || !statSync(file).isFile())
      throw new UsageError(`cannot read input file ${file}: no such file`);
    return;
  }
  let found: boolean;
  try {
    found = await batchInput(file).exists();
  } catch (err) {
    if (isStoreError(err)) throw new UsageError(`input: ${err.message}`);
    throw new Error(
      `cannot read input ${file}: ${(err as Error).message || (err as Error).name} (endpoint and credentials: AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)`,
    );
  }
  if (!found) throw new UsageError(`cannot read input ${file}: no such object`);
}
