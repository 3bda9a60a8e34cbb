/** A real stack whose results store is in MinIO, and the `sluice` CLI against it with the bucket's AWS variables, for one test file. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { type ObjectStore } from '../../results/store/object-store';
import { openResultsStore } from '../../results/store/open';
import { cleanEnv, sluice as runSluice } from '../cli/run-sluice';
import { orchestratorStack } from './orchestrator';
import { startS3Server, type S3Server } from './s3';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

export interface S3CliStack {
  s3: S3Server;
  s: Stack;
  /** The whole bucket, to look at what the daemon and the CLI wrote. */
  bucket: ObjectStore;
  /** The CLI's environment: the stack's settings, SLUICE_RESULTS_URL in the bucket, the AWS variables. */
  env: NodeJS.ProcessEnv;
  /** The CLI's working directory (nothing should be written there). */
  cwd: string;
  cli(...args: string[]): ReturnType<typeof runSluice>;
}

/** Started in beforeAll, stopped in afterAll; read its fields inside the tests. */
export function s3CliStack(): S3CliStack {
  const ctx = {} as S3CliStack;
  beforeAll(async () => {
    ctx.s3 = await startS3Server();
    ctx.s = await orchestratorStack({ results: { url: ctx.s3.url('results'), env: ctx.s3.env } });
    ctx.bucket = openResultsStore(ctx.s3.url(), { env: ctx.s3.env });
    ctx.cwd = mkdtempSync(join(tmpdir(), 'sluice-s3-cli-'));
    ctx.env = cleanEnv({
      ...ctx.s3.env,
      TEMPORAL_ADDRESS: ctx.s.env.address,
      SLUICE_QUEUE_URL: `${ctx.s.platform.url}/v2`,
      SLUICE_GRAPHQL_URL: `${ctx.s.platform.url}/graphql`,
      SLUICE_API_KEY: ctx.s.platform.apiKey,
      SLUICE_RESULTS_URL: ctx.s3.url('results'),
    });
  }, 120_000);
  afterAll(async () => {
    await ctx.s?.dispose();
    await ctx.bucket?.close();
    await ctx.s3?.stop();
    if (ctx.cwd) rmSync(ctx.cwd, { recursive: true, force: true });
  });
  ctx.cli = (...args: string[]) => runSluice(args, { env: ctx.env, cwd: ctx.cwd });
  return ctx;
}
