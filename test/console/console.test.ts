/**
 * The web console in a real browser (Debian's Chromium through playwright-core) against the real
 * stack: `sluice console` as a process, Temporal, the platform and the daemon. The batch list
 * matches `sluice batch status --json`, pausing from the page pauses the batch, the failures view
 * shows the failing inputs, the scaler page shows a burst's decision, the endpoint and job pages
 * show a job; a 100,000-input batch's page renders. Screenshots go to docs/console/*.png.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchClient } from '../../client/batch';
import { PipelineClient } from '../../client/pipeline';
import { ScalerClient } from '../../client/scaler';
import { inputFile, mixedEndpoint, type Stack } from '../batch/helpers';
import { orchestratorStack } from '../helpers/orchestrator';
import { addEndpoint, eventually, exampleCommand } from '../helpers/platform';
import { sluice, stackEnv, startSluice } from '../cli/run-sluice';
import { decisionWhen, sleepEndpoint, submit } from '../scaler/helpers';
import { launchChromium } from '../helpers/browser';

const SHOTS = join(__dirname, '..', '..', 'docs', 'console');
const PATIENCE = 90_000;

describe('the web console in a browser', () => {
  let s: Stack;
  let env: NodeJS.ProcessEnv;
  let server: ReturnType<typeof startSluice> | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let url: string;
  let batch: BatchClient;
  let scaler: ScalerClient;
  let pipeline: PipelineClient;
  let ep: string;
  const browserErrors: string[] = [];

  beforeAll(async () => {
    s = await orchestratorStack();
    env = stackEnv(s, { SLUICE_TEMPORAL_UI_URL: 'http://127.0.0.1:1/ui' });
    ep = mixedEndpoint(s, 'console-mixed', 4);
    batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir });
    scaler = new ScalerClient({ client: s.env.client, resultsDir: s.resultsDir });
    pipeline = new PipelineClient({ client: s.env.client, resultsDir: s.resultsDir });
    server = startSluice(['console', '--port', '0'], env);
    url = (await server.waitFor(/sluice console\s+(http:\/\/\S+)/))[1]!;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // Script errors and refused loads (a Content-Security-Policy violation, a missing asset) fail the last test.
    page.on('pageerror', (err) => browserErrors.push(err.message));
    page.on('response', (r) => {
      if (r.status() >= 400) browserErrors.push(`${r.status()} ${r.url()}`);
    });
    page.on('console', (msg) => {
      if (msg.type() === 'error') browserErrors.push(msg.text());
    });
    mkdirSync(SHOTS, { recursive: true });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await batch?.close();
    await scaler?.close();
    await pipeline?.close();
    await s?.dispose();
  });

  const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  const cellsOf = async (id: string) =>
    page
      .locator('#batch-rows tr', { has: page.locator(`a:text-is("${id}")`) })
      .locator('td')
      .allInnerTexts();

  it('lists a running batch with the numbers `sluice batch status --json` gives; pausing from the page pauses it; the failures view shows the failing inputs', async () => {
    const lines = Array.from({ length: 120 }, (_, i) =>
      i % 40 === 7 ? { kind: 'fail', message: `bad input ${i}` } : { kind: 'sleep', ms: 100, i },
    );
    const { file, dir } = inputFile(lines);
    await batch.start({
      id: 'console-b',
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 4, retry: { maxAttempts: 1 } },
    });
    await eventually(async () => (await batch.state('console-b')).counts.done >= 5, PATIENCE);
    // No worker until the page has paused it (the busy ones finish their jobs): it cannot end first, however loaded
    // the machine.
    const workers = (workersMin: number, workersMax: number) =>
      s.platform.registry.saveEndpoint({ ...s.platform.registry.endpoint(ep)!, workersMin, workersMax });
    workers(0, 0);

    await page.goto(`${url}/`);
    await expect.poll(() => page.locator('a:text-is("console-b")').count(), { timeout: PATIENCE }).toBe(1);
    await shot('batches');

    // Pause from the batch's page: its button, the confirmation, the POST.
    await page.click('a:text-is("console-b")');
    await page.waitForURL(`${url}/batches/console-b`);
    await page.click('a.button:text-is("Pause")');
    expect(await page.locator('h1').innerText()).toContain('Pause: batch console-b');
    await shot('confirm');
    await page.click('button:text-is("Pause")');
    await page.waitForURL(`${url}/batches/console-b`);
    await eventually(async () => (await batch.state('console-b')).phase === 'paused', PATIENCE);
    workers(1, 4);
    const paused = await eventually(async () => {
      const st = await batch.state('console-b');
      return st.phase === 'paused' && st.counts.inFlight === 0 ? st : undefined;
    }, PATIENCE);
    expect(paused!.waiting).toContain('paused');

    // Once nothing moves, the list's numbers are the CLI's.
    const r = await sluice(['batch', 'status', 'console-b', '--json'], { env });
    expect(r.code, r.stderr).toBe(4);
    const cli = JSON.parse(r.stdout) as {
      state: {
        phase: string;
        counts: { done: number; total?: number; byStatus: Record<string, number> };
        spend: number;
      };
    };
    expect(cli.state.phase).toBe('paused');
    await page.goto(`${url}/batches`);
    const cells = await cellsOf('console-b');
    const [, kind, endpoint, status, , doneTotal, failed] = cells;
    expect(kind).toBe('batch');
    expect(endpoint).toBe(ep);
    expect(status).toBe('paused');
    expect(doneTotal).toBe(`${cli.state.counts.done} / ${cli.state.counts.total ?? '?'}`);
    expect(Number(failed)).toBe(cli.state.counts.done - (cli.state.counts.byStatus.COMPLETED ?? 0));

    // Resume (through the library, as the CLI would), let it end; the failures view groups the failing inputs.
    await batch.resume('console-b');
    await batch.result('console-b');
    await page.goto(`${url}/batches/console-b`);
    await expect
      .poll(() => page.locator('#batch-failures').innerText(), { timeout: PATIENCE })
      .toContain('bad input 7');
    const failures = await page.locator('#batch-failures').innerText();
    expect(failures).toMatch(/\(3 inputs\)/);
    expect(failures).toContain('"kind":"fail"');
    await page.locator('a.button:text-is("Rerun failed inputs")').waitFor();
    await shot('batch');
  });

  it('lists a pipeline, shows its stages with counts on each, pauses it from its page, and groups its failures by stage and error type', async () => {
    // Its endpoint has no worker until the page has paused it: however loaded the machine, the pipeline cannot end
    // first (its first jobs wait queued at the platform). Then the endpoint gets its workers and the pipeline resumes.
    const gated = addEndpoint(s.platform, { name: 'console-gated', command: exampleCommand('mixed'), workersMax: 0 });
    const lines = Array.from({ length: 60 }, (_, i) => ({ i }));
    const { file, dir } = inputFile(lines);
    await pipeline.start({
      id: 'console-p',
      definition: {
        name: 'two-stages',
        stages: [
          { name: 'first', endpoint: gated.id, input: "{ 'kind': 'sleep', 'ms': 50, 'i': $.input.i }" },
          {
            name: 'second',
            endpoint: gated.id,
            when: '$.input.i % 10 != 9',
            input:
              "$.input.i % 20 = 3 ? { 'kind': 'fail', 'message': 'bad input ' & $.input.i } : { 'kind': 'echo', 'i': $.input.i }",
            retry: { maxAttempts: 1 },
          },
        ],
      },
      source: file,
      outDir: join(dir, 'out'),
    });
    // Its first jobs submitted (queued at the platform, which has no worker for them).
    await eventually(async () => (await pipeline.state('console-p')).stages[0]?.batch?.counts.inFlight, PATIENCE);

    await page.goto(`${url}/batches?kind=pipeline`);
    await expect.poll(() => page.locator('a:text-is("console-p")').count(), { timeout: PATIENCE }).toBe(1);
    const row = await cellsOf('console-p');
    expect(row[1]).toBe('pipeline');
    expect(row[2]).toBe('first → second');
    // The stage batches are not rows of their own.
    await page.goto(`${url}/batches`);
    expect(await page.locator('a:text-is("pipeline/console-p/first")').count()).toBe(0);

    await page.goto(`${url}/pipelines/console-p`);
    await page.locator('.stage[data-stage="first"]').waitFor();
    expect(await page.locator('.stage[data-stage="second"]').innerText()).toMatch(/in flight/);
    await page.click('a.button:text-is("Pause")');
    expect(await page.locator('h1').innerText()).toContain('Pause: pipeline console-p');
    await page.click('button:text-is("Pause")');
    await page.waitForURL(`${url}/pipelines/console-p`);
    await eventually(async () => (await pipeline.state('console-p')).phase === 'paused', PATIENCE);
    expect((await pipeline.state('console-p')).counts.done).toBe(0);

    s.platform.registry.saveEndpoint({ ...s.platform.registry.endpoint(gated.id)!, workersMax: 4 });
    await pipeline.resume('console-p');
    const end = await pipeline.result('console-p');
    expect(end.counts.byStatus).toEqual({ COMPLETED: 51, FAILED: 3, SKIPPED: 6 });
    await page.goto(`${url}/pipelines/console-p`);
    await expect
      .poll(() => page.locator('#pipeline-failures').innerText(), { timeout: PATIENCE })
      .toContain('bad input 3');
    const failures = await page.locator('#pipeline-failures').innerText();
    expect(failures).toMatch(/second · \S+ \(3 inputs\)/);
    expect(failures).toContain('"i":3');
    // After the outcomes' pass the diagram counts the skipped inputs on their stage, the chart has the history.
    await page.reload();
    await expect
      .poll(() => page.locator('.stage[data-stage="second"]').innerText(), { timeout: PATIENCE })
      .toMatch(/skipped\s+6/);
    expect(await page.locator('.stage[data-stage="second"]').innerText()).toMatch(/failed\s+3/);
    const points = (
      JSON.parse((await page.locator('#pipeline-chart').getAttribute('data-chart')) ?? '{}') as { x: number[] }
    ).x.length;
    expect(points).toBeGreaterThan(2);
    await page.locator('a.button:text-is("Retry failed inputs")').waitFor();
    await shot('pipeline');
    await page.goto(`${url}/batches?kind=pipeline`);
    await shot('pipelines');
  });

  it('shows a decision a burst made on the scaler page, and the endpoint page lists its jobs with the job page behind them', async () => {
    const sleepy = sleepEndpoint(s, 'console-burst', { workersMin: 0, workersMax: 1 });
    await scaler.start(sleepy, {
      intervalMs: 500,
      stabilizationWindowMs: 4000,
      cooldownMs: 6000,
      minWriteGapMs: 1000,
      ceiling: 4,
      scaleUp: { workers: 4 },
    });
    await submit(s, sleepy, 4, 2000);
    const { decision } = await decisionWhen(scaler, sleepy, (d) => d.write && d.bounds.workersMax >= 4, PATIENCE);
    await page.goto(`${url}/scalers/${sleepy}`);
    await expect.poll(() => page.locator('#scaler-live').innerText(), { timeout: PATIENCE }).toContain(decision.reason);
    // The chart gathers a sample per refresh (every 2 s): wait for a few, so the screenshot shows a line.
    const samples = async () =>
      (JSON.parse((await page.locator('#scaler-chart').getAttribute('data-chart')) ?? '{}') as { x: number[] }).x
        .length;
    await expect.poll(samples, { timeout: PATIENCE }).toBeGreaterThanOrEqual(4);
    await shot('scaler');
    await page.goto(`${url}/scalers`);
    await page.locator(`a:text-is("${sleepy}")`).waitFor();
    await shot('scalers');

    const id = await s.sluice.start({ endpointId: ep, input: { kind: 'echo', hello: '<b>console</b>' } });
    await s.sluice.result(id);
    await page.goto(`${url}/endpoints/${ep}`);
    await expect.poll(() => page.locator(`a:text-is("${id}")`).count(), { timeout: PATIENCE }).toBe(1);
    expect(await page.locator('a:text-is("workflow")').first().getAttribute('href')).toBe(
      `http://127.0.0.1:1/ui/namespaces/default/workflows/${encodeURIComponent(id)}`,
    );
    await shot('endpoint');
    await page.goto(`${url}/endpoints`);
    await page.locator('a:text-is("console-mixed")').waitFor();
    await shot('endpoints');
    await page.goto(`${url}/jobs/${encodeURIComponent(id)}`);
    expect(await page.locator('main').innerText()).toContain('<b>console</b>'); // the output, as text
    expect(await page.locator('main').innerText()).toContain('COMPLETED');
    await shot('job');
  });

  it('refuses to listen off this machine without a token (exit 2, the variable named)', async () => {
    const r = await sluice(['console', '--host', '0.0.0.0', '--port', '0'], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('SLUICE_CONSOLE_TOKEN');
  });

  it('is served by the daemon when asked for (sluice worker --console-port)', async () => {
    const daemonEnv = {
      ...env,
      SLUICE_DAEMON_PORT: '0',
      SLUICE_TEMPORAL_METRICS_PORT: '0',
      SLUICE_TASK_QUEUE: 'console-daemon-test',
    };
    const daemon = startSluice(['worker', '--console-port', '0'], daemonEnv);
    try {
      const consoleUrl = (await daemon.waitFor(/console (http:\/\/127\.0\.0\.1:\d+)/))[1]!;
      const res = await fetch(`${consoleUrl}/batches`);
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('console-b');
    } finally {
      await daemon.stop();
    }
  });

  it("renders a 100,000-input batch's page (the figures of its load time are bench/console's)", async () => {
    const { file, dir } = inputFile(Array.from({ length: 100_000 }, (_, i) => ({ kind: 'echo', i })));
    await batch.start({
      id: 'console-big',
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 4 },
    });
    await batch.pause('console-big');
    const res = await page.goto(`${url}/batches/console-big`);
    expect(res?.status()).toBe(200);
    expect(await page.locator('h1').innerText()).toContain('Batch console-big');
    await expect.poll(() => page.locator('#batch-live').innerText(), { timeout: PATIENCE }).toMatch(/100,000|read/);
    await expect
      .poll(() => page.locator('#batch-failures').innerText(), { timeout: PATIENCE })
      .toContain('no failed inputs');
    await batch.cancel('console-big');
  });

  it('ran every page without a script error or a refused load in the browser', () => {
    expect(browserErrors).toEqual([]);
  });
});
