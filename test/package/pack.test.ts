/**
 * The published package, as a user gets it: `npm pack`, installed into a project with no TypeScript
 * and no tsx; ESM and CJS consumers run with plain `node` against a real stack whose daemon is the
 * installed `sluice worker` (its workflow bundle built from the package's compiled files, cached
 * outside node_modules); a strict TypeScript consumer type-checks against the shipped .d.ts alone.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import { stopProcessGroup } from '../../common/process';
import { daemonEnv, temporalEnv } from '../helpers/orchestrator';
import { testPlatform } from '../helpers/platform';

const root = join(__dirname, '..', '..');
const run = promisify(execFile);
const npm = (args: string[], cwd: string) =>
  run('npm', args, { cwd, env: { ...process.env, SLUICE_SKIP_TOOLS: '1' }, maxBuffer: 64 << 20 });

const ESM = `import { Client, Connection } from '@temporalio/client';
import { SluiceClient } from 'sluice';
import { BATCH_UPDATES } from 'sluice/contracts';
const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
const sluice = new SluiceClient({ client: new Client({ connection }), taskQueue: process.env.SLUICE_TASK_QUEUE, resultsDir: process.env.SLUICE_RESULTS_DIR });
const id = await sluice.job.start({ endpointId: process.env.ENDPOINT_ID, input: { from: 'esm' } });
const result = await sluice.job.result(id);
console.log(JSON.stringify({ status: result.status, output: await sluice.job.output(result), contracts: typeof BATCH_UPDATES }));
await connection.close();
`;
const CJS = `const { Client, Connection } = require('@temporalio/client');
const { SluiceClient } = require('sluice');
const { BATCH_UPDATES } = require('sluice/contracts');
(async () => {
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS });
  const sluice = new SluiceClient({ client: new Client({ connection }), taskQueue: process.env.SLUICE_TASK_QUEUE, resultsDir: process.env.SLUICE_RESULTS_DIR });
  const id = await sluice.job.start({ endpointId: process.env.ENDPOINT_ID, input: { from: 'cjs' } });
  const result = await sluice.job.result(id);
  console.log(JSON.stringify({ status: result.status, output: await sluice.job.output(result), contracts: typeof BATCH_UPDATES }));
  await connection.close();
})();
`;
/** A user's workflow importing sluice/workflows (bundled by Temporal's bundler, run by the user's own worker). */
const USER_WORKFLOW = `import { runJob } from 'sluice/workflows';
export async function oneJob(endpointId, sluiceTaskQueue) {
  const result = await runJob('echo', { endpointId, input: { from: 'workflow' } }, { taskQueue: sluiceTaskQueue });
  return { status: result.status, output: result.output };
}
`;
/** The user's worker on its own task queue: bundles the workflow above, runs it once, prints its result. */
const USER_WORKER = `import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
const address = process.env.TEMPORAL_ADDRESS;
const { code } = await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('./user-workflow.mjs', import.meta.url)), logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } });
const native = await NativeConnection.connect({ address });
const worker = await Worker.create({ connection: native, taskQueue: 'user-workflows', workflowBundle: { code } });
const connection = await Connection.connect({ address });
const result = await worker.runUntil(new Client({ connection }).workflow.execute('oneJob', { taskQueue: 'user-workflows', workflowId: 'user/one', args: [process.env.ENDPOINT_ID, process.env.SLUICE_TASK_QUEUE] }));
console.log(JSON.stringify({ ...result, zodBundled: /ZodError|node_modules\\/zod\\//.test(code) }));
await connection.close();
await native.close();
`;
const TS = `import { Client, Connection } from '@temporalio/client';
import { SluiceClient, type JobWorkflowResult } from 'sluice';
import { LIMITS } from 'sluice/contracts';
import { runBatch, runJob, runPipeline, type RunOptions } from 'sluice/workflows';

export async function mine(endpointId: string, on: RunOptions): Promise<string> {
  const job = await runJob('one', { endpointId, input: { n: 1 }, options: { retry: { maxAttempts: 2 } } }, on);
  const batch = await runBatch('many', { endpointId, source: '/data/in.jsonl', outDir: '/data/out' });
  const stages = [{ name: 'a', endpoint: endpointId, input: "{ 'n': $.input.n }", concurrency: 4 }];
  const pipeline = await runPipeline('chain', { definition: { name: 'p', stages }, source: '/data/in.jsonl', outDir: '/data/p' }, on);
  const done: number = pipeline.counts.done;
  return \`\${job.status} \${batch.counts.done} \${batch.outDir} \${pipeline.stages[0]?.name} \${done}\`;
}

export async function start(endpointId: string): Promise<JobWorkflowResult['status']> {
  const connection = await Connection.connect({ address: 'localhost:7233' });
  const sluice = new SluiceClient({ client: new Client({ connection }) });
  const id: string = await sluice.job.start({ endpointId, input: { n: LIMITS.runPayloadBytes } });
  return (await sluice.job.result(id)).status;
}
`;

describe('the packed package', () => {
  let dir: string;
  let project: string;
  let installLog: string;
  let env: TestWorkflowEnvironment;
  let platform: Awaited<ReturnType<typeof testPlatform>>;
  let worker: ChildProcess;
  let consumerEnv: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-pack-'));
    project = join(dir, 'consumer');
    // The tarball packs dist/ as `npm test` built it (pretest). Not rebuilt here (`--ignore-scripts`
    // skips prepack): other test files run the compiled CLI at the same time. Built only if absent.
    if (!existsSync(join(root, 'dist', 'client', 'index.js'))) await npm(['run', 'build'], root);
    await npm(['pack', '--ignore-scripts', '--pack-destination', dir], root);
    const tarball = join(
      dir,
      readdirSync(dir).find((f) => f.endsWith('.tgz'))!,
    );
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
    // better-sqlite3 (the platform's) is native: copied built, so the install compiles nothing.
    cpSync(join(root, 'node_modules', 'better-sqlite3'), join(project, 'node_modules', 'better-sqlite3'), {
      recursive: true,
    });
    const install = await npm(
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--foreground-scripts', tarball],
      project,
    );
    installLog = install.stdout + install.stderr;
  }, 240_000);

  afterAll(async () => {
    if (worker) await stopProcessGroup(worker, 5000);
    await platform?.dispose();
    await env?.teardown();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('installs without running or declaring an install script of its own', () => {
    expect(installLog).not.toMatch(/> sluice@/);
    expect(installLog).not.toMatch(/sluice@[^ ]+ \(/);
    const pkg = JSON.parse(readFileSync(join(project, 'node_modules', 'sluice', 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>;
    };
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(pkg.scripts?.[script]).toBeUndefined();
    expect(existsSync(join(project, 'node_modules', 'sluice', '.tools'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'typescript'))).toBe(false);
    expect(existsSync(join(project, 'node_modules', 'tsx'))).toBe(false);
  });

  it('runs ESM and CJS consumers with plain node against a stack whose daemon is the installed sluice', async () => {
    env = await temporalEnv();
    platform = await testPlatform();
    const taskQueue = `pack-${process.pid}`;
    const resultsDir = join(dir, 'results');
    const cacheDir = join(dir, 'cache');
    worker = spawn(join(project, 'node_modules', '.bin', 'sluice'), ['worker'], {
      cwd: project,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        SLUICE_LOG_LEVEL: 'warn',
        SLUICE_LOG_PRETTY: '0',
        SLUICE_CACHE_DIR: cacheDir,
        SLUICE_TASK_QUEUE: taskQueue,
        ...daemonEnv(platform, env.address, resultsDir),
      },
    });
    let out = '';
    worker.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    worker.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const tick = () => (/sluice worker running/.test(out) ? resolve() : setTimeout(tick, 100));
      worker.once('exit', (code) => reject(new Error(`sluice worker exited (${code}):\n${out}`)));
      tick();
    });
    consumerEnv = {
      PATH: process.env.PATH,
      TEMPORAL_ADDRESS: env.address,
      SLUICE_TASK_QUEUE: taskQueue,
      SLUICE_RESULTS_DIR: resultsDir,
      ENDPOINT_ID: platform.examples.echo!.id,
    };
    for (const [file, from] of [
      ['esm.mjs', 'esm'],
      ['cjs.cjs', 'cjs'],
    ] as const) {
      writeFileSync(join(project, file), from === 'esm' ? ESM : CJS);
      const { stdout } = await run(process.execPath, [file], { cwd: project, env: consumerEnv, timeout: 90_000 });
      const line = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
        status: string;
        output: unknown;
        contracts: string;
      };
      expect(line.status).toBe('COMPLETED');
      expect(JSON.stringify(line.output)).toContain(from);
      expect(line.contracts).toBe('object');
    }
    // A user's workflow runs sluice's job workflow as its child through sluice/workflows; its bundle holds no zod.
    writeFileSync(join(project, 'user-workflow.mjs'), USER_WORKFLOW);
    writeFileSync(join(project, 'user-worker.mjs'), USER_WORKER);
    const { stdout } = await run(process.execPath, ['user-worker.mjs'], {
      cwd: project,
      env: consumerEnv,
      timeout: 120_000,
    });
    const user = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      status: string;
      output: unknown;
      zodBundled: boolean;
    };
    expect(user).toMatchObject({ status: 'COMPLETED', output: { from: 'workflow' }, zodBundled: false });
    // The daemon bundled the package's compiled workflows into the cache dir, never into node_modules.
    expect(readdirSync(cacheDir).some((f) => /^workflow-bundle-.*\.js$/.test(f))).toBe(true);
    const files = readdirSync(join(project, 'node_modules', 'sluice'), { recursive: true }).map(String);
    expect(files.filter((f) => f.includes('workflow-bundle'))).toEqual([]);
    // The installed CLI's short commands: the vendor bundle's index ships (without it they would load
    // node_modules one file at a time), and their compiled code is cached in the cache dir, not the package.
    expect(files).toContain(join('dist', 'vendor', 'index.json'));
    const list = await run(join(project, 'node_modules', '.bin', 'sluice'), ['batch', 'list'], {
      cwd: project,
      env: { ...consumerEnv, HOME: dir, SLUICE_CACHE_DIR: cacheDir },
      timeout: 60_000,
    });
    expect(list.stdout).toContain('no batches');
    expect(readdirSync(cacheDir).some((f) => f === 'compile' || f.startsWith('code-cache-'))).toBe(true);
  }, 180_000);

  it("type-checks a strict TypeScript consumer against the package's declarations alone", async () => {
    writeFileSync(join(project, 'index.ts'), TS);
    // The consumer's own choices: strict, Node's module resolution, every declaration file checked.
    const compilerOptions = {
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      typeRoots: [join(root, 'node_modules', '@types')],
      types: ['node'],
    };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['index.ts'] }));
    // A misuse must be refused: the declarations are read, not taken as `any`.
    writeFileSync(
      join(project, 'misuse.ts'),
      "import { SluiceClient } from 'sluice';\nimport { runJob } from 'sluice/workflows';\nnew SluiceClient({ client: 1 });\nvoid runJob('k', { endpointId: 1 });\n",
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['index.ts', 'misuse.ts'] }),
    );
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project }).catch(
      (err: { stdout: string }) => err,
    );
    const errors = result.stdout.split('\n').filter((l) => /error TS/.test(l));
    expect(errors.filter((l) => l.startsWith('misuse.ts')).length).toBe(2);
    // Other packages' own declarations (e.g. @temporalio/common's use of `ms`) are theirs to fix.
    expect(errors.filter((l) => !l.startsWith('misuse.ts') && !/^node_modules\/(?!sluice\/)/.test(l))).toEqual([]);
  });
});
