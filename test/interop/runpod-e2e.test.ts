/**
 * Interop: runpod-python's own `tests/e2e` (from the pinned `runpod==1.12.0` source archive),
 * unchanged, against the platform. Its endpoints are provisioned by its own Flash code
 * (`runpod-flash`, pinned) through GraphQL `saveEndpoint` with an inline template naming the
 * image `runpod/mock-worker:latest`; the platform runs that image from a local stand-in
 * (images/mock-worker: the stock worker SDK with the mock worker's input contract). Only the
 * API URLs and the key are set, as its CI sets them.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stopProcessGroup } from '../../common/process';
import { testPlatform } from '../helpers/platform';
import { isolatedHome, projectRoot, requireVenvPython } from './support';

type TestPlatform = Awaited<ReturnType<typeof testPlatform>>;

const SDIST = join(projectRoot, '.tools', 'runpod-sdist');
const IMAGE = 'runpod/mock-worker:latest';

let platform: TestPlatform;
let home: ReturnType<typeof isolatedHome>;
let checkout: string;

beforeAll(async () => {
  const python = requireVenvPython();
  if (!existsSync(join(SDIST, 'tests', 'e2e')))
    throw new Error(
      `${SDIST}/tests/e2e is missing: run \`npm install\` (scripts/install-tools.mjs unpacks the runpod sdist)`,
    );
  home = isolatedHome();
  // A fresh copy per run: the suite checks that `runpod` is imported from its own tree, and Flash keeps state (.flash/) there.
  checkout = mkdtempSync(join(tmpdir(), 'sluice-runpod-e2e-'));
  cpSync(SDIST, checkout, { recursive: true });
  const venvBin = dirname(python);
  platform = await testPlatform({
    pods: {
      images: {
        [IMAGE]: {
          root: join(__dirname, 'images', 'mock-worker'),
          env: { PATH: `${venvBin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
        },
      },
    },
  });
});

afterAll(async () => {
  await platform?.dispose();
  home?.dispose();
  if (checkout) rmSync(checkout, { recursive: true, force: true });
});

/** Runs pytest as runpod-python's CI does (`-o addopts=`: no coverage gate); resolves with its exit code and output. */
function pytest(env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  const python = requireVenvPython();
  const args = ['-m', 'pytest', 'tests/e2e/', '-v', '-p', 'no:xdist', '--timeout=120', '-o', 'addopts='];
  const proc = spawn(python, args, { cwd: checkout, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => void stopProcessGroup(proc, 2000).then(() => reject(new Error(`pytest timed out\n${out}`))),
      timeoutMs,
    );
    proc.once('error', reject);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      // Its `flash run` server and anything else it started go with it.
      void stopProcessGroup(proc, 0).then(() => resolve({ code, out }));
    });
  });
}

it('runpod-python tests/e2e passes unchanged, its endpoints provisioned by Flash', async () => {
  const url = platform.url;
  const { code, out } = await pytest(
    {
      PATH: `${dirname(requireVenvPython())}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: home.dir,
      RUNPOD_API_KEY: platform.apiKey,
      RUNPOD_API_BASE_URL: url,
      RUNPOD_ENDPOINT_BASE_URL: `${url}/v2`,
      RUNPOD_REST_API_URL: `${url}/v1`,
      RUNPOD_HAPI_URL: url,
      RUNPOD_CONSOLE_URL: url,
    },
    150_000,
  );
  expect(code, out).toBe(0);
  expect(out).toMatch(/test_mock_worker\.py::test_mock_worker_jobs PASSED/);
  expect(out).toMatch(/\b2 passed\b/);
  expect(out).not.toMatch(/skipped|deselected/);

  // Flash's saveEndpoint was recorded as sent: three endpoints (one per worker command) on the mock-worker image.
  const made = platform.registry.endpointsOf(platform.user.id).filter((e) => e.name.startsWith('rp-python-e2e-'));
  expect(made).toHaveLength(3);
  for (const e of made) {
    expect(e).toMatchObject({
      minCudaVersion: '12.8',
      workersMin: 0,
      workersMax: 3,
      idleTimeout: 5,
      flashBootType: 'FLASHBOOT',
      gpuIds: 'ADA_24,AMPERE_16,AMPERE_24,AMPERE_48,AMPERE_80',
    });
    expect(platform.registry.template(e.templateId)).toMatchObject({
      imageName: IMAGE,
      isServerless: true,
      containerDiskInGb: 64,
      volumeMountPath: '/workspace',
    });
  }
}, 180_000);
