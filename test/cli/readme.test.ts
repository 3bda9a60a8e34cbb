/** The README's TypeScript example, as a consumer of the package would run it: compiled by tsc, run by tsx against a real stack. */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratorStack } from '../helpers/orchestrator';

const root = join(__dirname, '..', '..');
const modules = join(root, 'node_modules');

function exec(file: string, args: string[], o: { cwd: string; env?: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number; out: string }>((resolve) => {
    execFile(file, args, { ...o, timeout: 120_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, out: stdout + stderr }),
    );
  });
}

/** The first ```ts block of README.md. */
function readmeSnippet(): string {
  const m = /```ts\n([\s\S]*?)```/.exec(readFileSync(join(root, 'README.md'), 'utf8'));
  if (!m) throw new Error('README.md has no ```ts block');
  return m[1]!;
}

describe('the README TypeScript example', () => {
  let s: Awaited<ReturnType<typeof orchestratorStack>>;
  // A consumer project: `sluice` installed (a link to this package), an ES module, run with tsx.
  const app = mkdtempSync(join(tmpdir(), 'sluice-consumer-'));
  beforeAll(async () => {
    s = await orchestratorStack();
    mkdirSync(join(app, 'node_modules', '@types'), { recursive: true });
    symlinkSync(root, join(app, 'node_modules', 'sluice'));
    symlinkSync(join(modules, '@temporalio'), join(app, 'node_modules', '@temporalio'));
    symlinkSync(join(modules, '@types', 'node'), join(app, 'node_modules', '@types', 'node'));
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'pipeline', private: true, type: 'module' }));
    writeFileSync(join(app, 'pipeline.ts'), readmeSnippet());
  });
  afterAll(async () => {
    await s?.dispose();
    rmSync(app, { recursive: true, force: true });
  });

  it(
    'imports from "sluice", type-checks (tsc, nodenext) and runs (tsx) to a completed job',
    { timeout: 180_000 },
    async () => {
      const tsc = await exec(
        process.execPath,
        [
          join(modules, 'typescript', 'bin', 'tsc'),
          '--noEmit',
          '--strict',
          '--skipLibCheck',
          '--target',
          'es2022',
          '--module',
          'nodenext',
          '--moduleResolution',
          'nodenext',
          '--types',
          'node',
          'pipeline.ts',
        ],
        { cwd: app },
      );
      expect(tsc.code, tsc.out).toBe(0);
      const run = await exec(join(modules, '.bin', 'tsx'), ['pipeline.ts'], {
        cwd: app,
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: s.env.address,
          SLUICE_RESULTS_DIR: s.resultsDir,
          ENDPOINT_ID: s.platform.examples.echo!.id,
        },
      });
      expect(run.code, run.out).toBe(0);
      expect(run.out).toMatch(/COMPLETED \{ hello: 'world' \}/);
    },
  );
});
