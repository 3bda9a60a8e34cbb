/** docs/handlers.md, followed step by step: its handler files written, its `sluice` commands run against a real stack. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratorStack } from '../helpers/orchestrator';
import { bin, cleanEnv } from './run-sluice';

const root = join(__dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'handlers.md'), 'utf8');
/** The page's files (```lang file=PATH) and the `npx sluice` lines of its sh blocks, in order. */
const files = [...doc.matchAll(/```\w+ file=(\S+)\n([\s\S]*?)```/g)].map((m) => ({ path: m[1]!, text: m[2]! }));
const commands = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)]
  .flatMap((m) => m[1]!.split('\n'))
  .filter((l) => l.startsWith('npx sluice ') && !l.startsWith('npx sluice dev'));

function sh(line: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile('sh', ['-c', line], { cwd: root, env, timeout: 90_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('docs/handlers.md: write and deploy your own handler', () => {
  let stack: Awaited<ReturnType<typeof orchestratorStack>>;
  let env: NodeJS.ProcessEnv;
  // The page's `my-handlers/`, as a fresh folder of the checkout (its files import ../worker-sdk).
  const dir = mkdtempSync(join(root, 'my-handlers-'));
  beforeAll(async () => {
    stack = await orchestratorStack();
    const p = stack.platform;
    env = cleanEnv({
      TEMPORAL_ADDRESS: stack.env.address,
      SLUICE_TASK_QUEUE: stack.config.SLUICE_TASK_QUEUE,
      SLUICE_API_KEY: p.apiKey,
      SLUICE_RESULTS_DIR: stack.resultsDir,
      SLUICE_QUEUE_URL: `${p.url}/v2`,
      SLUICE_REST_URL: `${p.url}/v1`,
      SLUICE_GRAPHQL_URL: `${p.url}/graphql`,
    });
  });
  afterAll(async () => {
    await stack?.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the templates and endpoints, runs a job on each handler (TypeScript and Python), updates and deletes them', async () => {
    expect(files.map((f) => f.path)).toEqual(['my-handlers/shout.ts', 'my-handlers/shout.py']);
    for (const f of files) {
      const path = join(dir, basename(f.path));
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, f.text);
    }
    expect(commands.length).toBeGreaterThan(8);
    const outputs: Record<string, string> = {};
    for (const line of commands) {
      const r = await sh(
        line.replace(/^npx sluice /, `"${process.execPath}" "${bin}" `).replaceAll('my-handlers/', `${basename(dir)}/`),
        env,
      );
      expect(r.code, `${line}\n${r.stdout}\n${r.stderr}`).toBe(0);
      outputs[line] = r.stdout;
    }
    const run = (name: string) =>
      JSON.parse(outputs[commands.find((l) => l.includes(`run --endpoint ${name}`))!]!.trim().split('\n').at(-1)!);
    expect(run('shout-ts')).toMatchObject({ status: 'COMPLETED', output: { shout: 'HELLO!', by: 'typescript' } });
    expect(run('shout-py')).toMatchObject({ status: 'COMPLETED', output: { shout: 'HELLO!', by: 'python' } });
    expect(outputs['npx sluice endpoints list']).toMatch(/shout-ts[\s\S]*shout-py/);
    const left = await sh(`"${process.execPath}" "${bin}" endpoints list --json`, env);
    expect(JSON.parse(left.stdout).map((e: { name: string }) => e.name)).not.toContain('shout-ts');
    const templates = JSON.parse((await sh(`"${process.execPath}" "${bin}" templates list --json`, env)).stdout);
    expect(templates.map((t: { name: string }) => t.name)).toEqual(expect.arrayContaining(['shout-ts', 'shout-py']));
  }, 180_000);

  it('bad input: an unknown template or endpoint, a missing flag, no service — a clear message, exit 2', async () => {
    const s = (args: string, e = env) => sh(`"${process.execPath}" "${bin}" ${args}`, e);
    const noTemplate = await s('endpoints create --name x --template nope');
    expect(noTemplate.code).toBe(2);
    expect(noTemplate.stderr).toMatch(/template nope not found; your templates: /);
    const noEndpoint = await s('endpoints delete nope');
    expect(noEndpoint.code).toBe(2);
    expect(noEndpoint.stderr).toMatch(/endpoint nope not found; the endpoints that exist: .*echo/);
    const noCommand = await s('templates create --name y');
    expect(noCommand.code).toBe(2);
    expect(noCommand.stderr).toMatch(/--command is required/);
    const dup = await s('templates create --name sluice-example-echo --command true');
    expect(dup.code).toBe(2);
    expect(dup.stderr).toMatch(/already exists/);
    const none = await s('endpoints list --data-dir /nonexistent', cleanEnv());
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /no service to talk to: SLUICE_GRAPHQL_URL, SLUICE_REST_URL and SLUICE_API_KEY are needed/,
    );
  });
});
