/**
 * bench/console: how fast the web console's pages answer with a big batch (default 100,000 inputs,
 * 1 % failing) on `sluice dev`: each page's server time (median of 5 requests) while the batch runs
 * and once it ended, and the batch page in headless Chromium (load event; the failures fragment shown).
 * The goal: the batch page loads in under 2 s at 100,000 inputs.
 *
 *   npx tsx bench/console/index.ts [--inputs 100000] [--concurrency 64] [--workers 8] [--json]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { request } from 'undici';
import { cleanEnv, sluice, startSluice } from '../../test/cli/run-sluice';
import { freePort } from '../../test/helpers/platform';
import { launchChromium } from '../../test/helpers/browser';

const { values } = parseArgs({
  options: {
    inputs: { type: 'string' },
    concurrency: { type: 'string' },
    workers: { type: 'string' },
    json: { type: 'boolean' },
  },
});
const INPUTS = Number(values.inputs ?? 100_000);
const CONCURRENCY = Number(values.concurrency ?? 64);
const WORKERS = Number(values.workers ?? 8);
const ID = 'bench-console';

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Server time of the first of `n` GETs of `url` (cold: nothing kept yet) and their median, ms (the body read whole). */
async function timeGet(url: string, n = 5): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const r = await request(url, { headers: { 'hx-request': 'true' } });
    await r.body.text();
    if (r.statusCode !== 200) throw new Error(`${url}: ${r.statusCode}`);
    times.push(performance.now() - t0);
  }
  return `${Math.round(times[0]!)}/${Math.round(median(times))}`;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-console-'));
  const env = cleanEnv({ SLUICE_TEMPORAL_METRICS_PORT: '0', SLUICE_LOG_LEVEL: 'error' });
  const temporalPort = await freePort();
  const dev = startSluice(
    ['dev', '--data-dir', dir, '--port', '0', '--temporal-port', String(temporalPort), '--daemon-port', '0'],
    env,
    dir,
  );
  const browser = await launchChromium();
  try {
    const url = (await dev.waitFor(/console\s+(http:\/\/\S+)/, 180_000))[1]!;
    const cli = (...args: string[]) => sluice([...args, '--data-dir', dir], { env, cwd: dir, timeout: 120_000 });
    await cli('endpoints', 'update', 'mixed', '--workers-min', String(WORKERS), '--workers-max', String(WORKERS));
    const file = join(dir, 'inputs.jsonl');
    const lines = Array.from({ length: INPUTS }, (_, i) =>
      JSON.stringify(i % 100 === 7 ? { kind: 'fail', message: `bad ${i}` } : { kind: 'echo', i }),
    );
    writeFileSync(file, lines.join('\n') + '\n');
    const started = await cli(
      'batch',
      'start',
      file,
      '--endpoint',
      'mixed',
      '--id',
      ID,
      '--concurrency',
      String(CONCURRENCY),
      '--max-attempts',
      '1',
      '--detach',
    );
    if (started.code !== 0) throw new Error(`batch start: ${started.stderr}`);
    type Status = { workflowStatus: string; state?: { counts: { done: number } } };
    /** The batch's status (a failed read, on a loaded machine, is read again). */
    const done = async (): Promise<Status> => {
      for (let i = 0; ; i++) {
        const r = await cli('batch', 'status', ID, '--json');
        try {
          return JSON.parse(r.stdout) as Status;
        } catch (err) {
          if (i >= 5) throw new Error(`batch status: ${r.stderr || (err as Error).message}`);
          await new Promise((res) => setTimeout(res, 1000));
        }
      }
    };

    const pages = {
      list: `${url}/batches`,
      batch: `${url}/batches/${ID}`,
      live: `${url}/batches/${ID}/live`,
      failures: `${url}/batches/${ID}/failures`,
    };
    const measure = async (label: string) => {
      // The browser first: its figures are those of a first look (nothing of this state kept yet).
      const page = await browser.newPage();
      const t0 = performance.now();
      await page.goto(pages.batch, { waitUntil: 'load' });
      const load = Math.round(performance.now() - t0);
      await page
        .locator('#batch-failures h3, #batch-failures p:text-is("no failed inputs")')
        .first()
        .waitFor({ timeout: 120_000 });
      const failuresShown = Math.round(performance.now() - t0);
      await page.close();
      const server: Record<string, string> = {};
      for (const [k, u] of Object.entries(pages)) server[k] = await timeGet(u);
      const s = await done();
      return { label, done: s.state?.counts.done ?? 0, server, browser: { load, failuresShown } };
    };

    const rows = [];
    for (;;) {
      const s = await done();
      if ((s.state?.counts.done ?? 0) >= INPUTS / 2 || s.workflowStatus !== 'RUNNING') break;
      await new Promise((r) => setTimeout(r, 2000));
    }
    rows.push(await measure('running'));
    const t0 = Date.now();
    while ((await done()).workflowStatus === 'RUNNING') {
      if (Date.now() - t0 > 30 * 60_000) throw new Error('the batch did not end within 30 minutes');
      await new Promise((r) => setTimeout(r, 3000));
    }
    rows.push(await measure('ended'));
    if (values.json) console.log(JSON.stringify({ inputs: INPUTS, rows }));
    else {
      console.log(
        `console pages with a ${INPUTS.toLocaleString('en-US')}-input batch (ms; browser: a first look; server: first / median of 5 GETs after it, one at a time)`,
      );
      console.log('when         done  browser: load  failures shown  |  list      batch     live      failures');
      for (const r of rows)
        console.log(
          `${r.label.padEnd(9)} ${String(r.done).padStart(7)}  ${String(r.browser.load).padStart(13)}  ${String(r.browser.failuresShown).padStart(14)}  |  ${r.server.list!.padEnd(9)} ${r.server.batch!.padEnd(9)} ${r.server.live!.padEnd(9)} ${r.server.failures}`,
        );
    }
  } finally {
    await browser.close();
    await dev.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
