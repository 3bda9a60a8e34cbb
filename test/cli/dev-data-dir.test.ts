/** `sluice dev --data-dir DIR` reaches the other commands (--data-dir, SLUICE_DATA_DIR), and one settings source wins as a whole. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/platform';
import { cleanEnv, sluice, startSluice } from './run-sluice';

describe('sluice dev --data-dir and the other commands', () => {
  const root = mkdtempSync(join(tmpdir(), 'sluice-dev-'));
  const dataDir = join(root, 'state');
  const elsewhere = mkdtempSync(join(tmpdir(), 'sluice-elsewhere-'));
  let dev: ReturnType<typeof startSluice>;
  let temporalPort: number;
  let apiKey: string;
  beforeAll(async () => {
    temporalPort = await freePort();
    dev = startSluice(
      ['dev', '--data-dir', dataDir, '--port', '0', '--temporal-port', String(temporalPort), '--daemon-port', '0'],
      cleanEnv({ SLUICE_TEMPORAL_METRICS_PORT: '0' }),
      root,
    );
    apiKey = (await dev.waitFor(/API key\s+(\S+)/))[1]!;
    await dev.waitFor(/endpoints\s+.*echo=/);
  });
  afterAll(async () => {
    await dev?.stop();
    rmSync(root, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it("prints the web console's address among the others and serves it on 127.0.0.1, linking the dev server's Temporal UI", async () => {
    const consoleUrl = (await dev.waitFor(/console\s+(http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    const run = await sluice([
      'run',
      '--endpoint',
      'echo',
      '--input',
      '{"via":"console"}',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const { workflowId } = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { workflowId: string };
    const res = await fetch(`${consoleUrl}/jobs/${encodeURIComponent(workflowId)}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('COMPLETED');
    expect(html).toContain(`:${temporalPort + 1000}/namespaces/default/workflows/${encodeURIComponent(workflowId)}`);
  });

  it('run from another directory finds the stack through --data-dir and through SLUICE_DATA_DIR', async () => {
    const byFlag = await sluice(
      ['run', '--endpoint', 'echo', '--input', '{"via":"flag"}', '--json', '--data-dir', dataDir],
      { cwd: elsewhere },
    );
    expect(byFlag.code, byFlag.stderr).toBe(0);
    expect(JSON.parse(byFlag.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      status: 'COMPLETED',
      output: { via: 'flag' },
    });
    const byEnv = await sluice(['run', '--endpoint', 'echo', '--input', '{"via":"env"}', '--json'], {
      cwd: elsewhere,
      env: cleanEnv({ SLUICE_DATA_DIR: dataDir }),
    });
    expect(byEnv.code, byEnv.stderr).toBe(0);
    expect(JSON.parse(byEnv.stdout.trim().split('\n').at(-1)!)).toMatchObject({
      status: 'COMPLETED',
      output: { via: 'env' },
    });
  });

  it('config shows the dev stack as the source of every value, the key masked (--json and text)', async () => {
    const r = await sluice(['config', '--json'], { cwd: elsewhere, env: cleanEnv({ SLUICE_DATA_DIR: dataDir }) });
    expect(r.code, r.stderr).toBe(0);
    const c = JSON.parse(r.stdout);
    expect(c).toMatchObject({
      source: 'dev stack',
      devStateFile: join(dataDir, 'dev.json'),
      settings: {
        TEMPORAL_ADDRESS: { value: `127.0.0.1:${temporalPort}`, from: 'dev stack' },
        SLUICE_API_KEY: { from: 'dev stack' },
        SLUICE_RESULTS_DIR: { value: join(dataDir, 'results'), from: 'dev stack' },
        TEMPORAL_API_KEY: { value: null, from: 'unset' },
      },
    });
    expect(c.settings.SLUICE_API_KEY.value).not.toContain(apiKey.slice(0, 8));
    expect(r.stdout).not.toContain(apiKey);
    const text = await sluice(['config', '--data-dir', dataDir], { cwd: elsewhere });
    expect(text.stdout).toContain(`settings from the dev stack: ${join(dataDir, 'dev.json')}`);
    expect(text.stdout).not.toContain(apiKey);
  });

  it("TEMPORAL_ADDRESS alone makes the environment the source: the dev stack's key is not picked up, and run says why it cannot look names up", async () => {
    const env = cleanEnv({ SLUICE_DATA_DIR: dataDir, TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}` });
    const c = JSON.parse((await sluice(['config', '--json'], { cwd: elsewhere, env })).stdout);
    expect(c).toMatchObject({
      source: 'environment',
      settings: {
        TEMPORAL_ADDRESS: { from: 'environment' },
        SLUICE_API_KEY: { value: null, from: 'unset' },
        SLUICE_GRAPHQL_URL: { value: null, from: 'unset' },
      },
    });
    const r = await sluice(['run', '--endpoint', 'echo', '--input', '{}'], { cwd: elsewhere, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /cannot look up endpoint echo: no GraphQL URL and API key \(settings from the environment \(TEMPORAL_ADDRESS set\); the dev stack's .*dev\.json is not used\)/,
    );
    expect(r.stderr).not.toMatch(/not found/);
  });

  it('an unknown endpoint lists the ones the stack has; without the data dir, run says there is no stack instead of "not found"', async () => {
    const r = await sluice(['run', '--endpoint', 'ecoh', '--input', '{}', '--data-dir', dataDir], { cwd: elsewhere });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/endpoint ecoh not found; the endpoints that exist: .*echo \(\w+\).*stream \(\w+\)/);
    const none = await sluice(['run', '--endpoint', 'echo', '--input', '{}'], { cwd: elsewhere });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /cannot look up endpoint echo: no GraphQL URL and API key \(default settings \(no client variable set, no .*dev\.json\)\)/,
    );
  });
});
