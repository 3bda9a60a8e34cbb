/**
 * The Prometheus files of deploy/prometheus, checked by Prometheus' own tool (Debian's `promtool`,
 * installed by .ci/run): the rules load, each alert's unit tests pass, the config loads, and every
 * PromQL expression of the Grafana dashboard parses as Prometheus parses it.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { dashboardQueries, deployDir, metricNames, ruleQueries } from '../helpers/promql';

const run = promisify(execFile);
const PROMTOOL = process.env.PROMTOOL ?? '/usr/bin/promtool';
const prometheusDir = join(deployDir, 'prometheus');

/** promtool's output; a failure is thrown with it (.ci/run installs the `prometheus` package that ships it). */
async function promtool(...args: string[]): Promise<string> {
  try {
    const r = await run(PROMTOOL, args, { cwd: prometheusDir });
    return r.stdout + r.stderr;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

describe('deploy/prometheus', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-promtool-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('has alert rules that promtool loads, one per condition an operator is paged for', async () => {
    expect(await promtool('check', 'rules', 'alerts.yml')).toMatch(/SUCCESS: \d+ rules found/);
    expect(ruleQueries().map((q) => q.where)).toEqual(
      expect.arrayContaining([
        'rule SluiceBatchStalled',
        'rule SluiceBatchFailureRateHigh',
        'rule SluiceBatchSpendNearCap',
        'rule SluiceScalerInFallback',
        'rule SluiceDaemonDown',
        'rule SluiceWebhooksFallingBackToPolling',
      ]),
    );
  });

  it('passes the unit tests of every alert (promtool test rules tests/*.yml)', async () => {
    const files = readdirSync(join(prometheusDir, 'tests'))
      .filter((f) => f.endsWith('.yml'))
      .map((f) => `tests/${f}`);
    expect(files.length).toBeGreaterThan(0);
    expect(await promtool('test', 'rules', ...files)).toMatch(/SUCCESS/);
    // Every alert is tested.
    const tested = files.map((f) => readFileSync(join(prometheusDir, f), 'utf8')).join('\n');
    for (const q of ruleQueries()) expect(tested, q.where).toContain(`alertname: ${q.where.replace('rule ', '')}`);
  });

  it('has a Prometheus config that promtool loads, with the rules', async () => {
    expect(await promtool('check', 'config', 'prometheus.yml')).toMatch(/SUCCESS: prometheus\.yml is valid/);
  });

  it("has a dashboard whose every query Prometheus parses (each checked as a recording rule's expr)", async () => {
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(20);
    // The grammar of the web UI finds a metric in each, and promtool (Prometheus' parser) accepts each.
    for (const q of queries) expect(metricNames(q.expr).length, q.where).toBeGreaterThan(0);
    const file = join(dir, 'dashboard-rules.yml');
    writeFileSync(
      file,
      stringify({
        groups: [{ name: 'dashboard', rules: queries.map((q, i) => ({ record: `dashboard:q${i}`, expr: q.expr })) }],
      }),
    );
    expect(await promtool('check', 'rules', file)).toMatch(new RegExp(`SUCCESS: ${queries.length} rules found`));
  });
});
