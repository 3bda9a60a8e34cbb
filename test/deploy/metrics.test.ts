/**
 * Every metric the Grafana dashboard or an alert rule queries exists: on the real stack (Temporal,
 * the platform with real worker pods, the daemon), a job, a small batch, a two-stage pipeline and a scaler's ticks run
 * while the daemon's and the platform's /metrics are scraped; each name the PromQL selects (parsed
 * with Prometheus' grammar) must have samples in one of them.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { PipelineClient } from '../../client/pipeline';
import { ScalerClient } from '../../client/scaler';
import { batchStack, inputFile, mixedEndpoint } from '../batch/helpers';
import { eventually } from '../helpers/platform';
import { dashboardQueries, dashboardVariableMetrics, metricNames, ruleQueries, sampledNames } from '../helpers/promql';

/** Prometheus' own series (the scrape's `up`), not any target's. */
const PROMETHEUS_OWN = new Set(['up']);
/**
 * Series that need an event this run does not cause, declared (`# TYPE`) but without samples
 * until it happens: a 429 from the service.
 */
const ON_EVENT = new Set(['sluice_http_rate_limited_total']);

const scrape = async (url: string): Promise<string> => {
  const r = await request(`${url}/metrics`);
  expect(r.statusCode).toBe(200);
  return r.body.text();
};

describe('the metrics the dashboard and the alerts query', () => {
  const ctx = batchStack({ daemon: { SLUICE_METRICS_INTERVAL_MS: '300' } });

  it('are all exposed by the daemon or the platform during a job, a batch, a pipeline and a scaler tick', async () => {
    const { s, batch } = ctx;
    const seen = new Set<string>();
    let declared = '';
    const scrapeBoth = async (): Promise<void> => {
      const daemon = await scrape(s.daemon.url);
      const platform = await scrape(s.platform.url);
      declared = daemon + platform;
      for (const n of sampledNames(daemon)) seen.add(n);
      for (const n of sampledNames(platform)) seen.add(n);
    };

    const ep = mixedEndpoint(s, 'metrics', 3);
    const scaling = new ScalerClient({ client: s.env.client, resultsDir: s.resultsDir });
    await scaling.start(ep, { floor: 0, ceiling: 3, maxSpendPerHour: 100, intervalMs: 500 });
    const job = await s.sluice.start({ endpointId: ep, input: { kind: 'echo', hello: 'metrics' } });
    expect((await s.sluice.result(job)).status).toBe('COMPLETED');

    const lines = Array.from({ length: 40 }, (_, i) => (i % 8 === 7 ? { kind: 'fail' } : { kind: 'sleep', ms: 150 }));
    const { file, dir } = inputFile(lines);
    const id = await batch.start({
      endpointId: ep,
      source: file,
      outDir: join(dir, 'out'),
      options: { concurrency: 3, pricePerHour: 1, maxCost: 100 },
    });
    // A pipeline beside it: a sleep, then a stage that fails one input in 6 and skips one in 6 (its `when`).
    const pipelines = new PipelineClient({ client: s.env.client, resultsDir: s.resultsDir });
    const pep = mixedEndpoint(s, 'metrics-pipe', 3); // its own endpoint: the platform's counts below are the batch's
    const piped = inputFile(Array.from({ length: 24 }, (_, i) => ({ i })));
    const pipelineId = await pipelines.start({
      id: 'metrics-p',
      definition: {
        name: 'metrics',
        maxCost: 1000, // far above what it spends: its cap is a series (the spend-near-cap alert's)
        stages: [
          { name: 'first', endpoint: pep, input: "{ 'kind': 'sleep', 'ms': 150, 'i': $.input.i }" },
          {
            name: 'second',
            endpoint: pep,
            when: '$.input.i % 6 != 5',
            input: "{ 'kind': $.input.i % 6 = 2 ? 'fail' : 'echo', 'i': $.input.i }",
            retry: { maxAttempts: 1 },
          },
        ],
      },
      source: piped.file,
      outDir: join(piped.dir, 'out'),
    });
    // While they run: the batch's and the pipeline's live series (in flight, ETA, waiting reasons) and the scaler's.
    await eventually(
      async () => {
        await scrapeBoth();
        expect(seen).toContain('sluice_batch_eta_timestamp_seconds');
        expect(seen).toContain('sluice_scaler_load_jobs');
        expect(seen).toContain('sluice_batch_in_flight');
        expect(seen).toContain('sluice_pipeline_in_flight');
        expect(seen).toContain('sluice_pipeline_stage_in_flight');
        return true;
      },
      30_000,
      300,
    );
    const summary = await batch.result(id);
    const piping = await pipelines.result(pipelineId);
    expect(piping.counts.byStatus).toEqual({ COMPLETED: 16, FAILED: 4, SKIPPED: 4 });
    expect(summary.counts.byStatus.FAILED).toBe(5);
    // After it: its final counts, the platform's histograms of the jobs that finished.
    await eventually(
      async () => {
        await scrapeBoth();
        expect(declared).toMatch(
          new RegExp(
            `^sluice_batch_phase\\{batch="${id.replace('batch/', '')}",endpoint="${ep}",phase="done"\\} 1$`,
            'm',
          ),
        );
        expect(declared).toMatch(/^sluice_pipeline_phase\{pipeline="metrics-p",phase="done"\} 1$/m);
        return true;
      },
      10_000,
      300,
    );
    await scaling.stop(ep);
    // The numbers are the batch's own (what `sluice batch status` shows) and the platform's.
    const value = (name: string, labels: string): number | undefined => {
      const m = new RegExp(`^${name}\\{${labels}\\} ([\\d.e+-]+)$`, 'm').exec(declared);
      return m ? Number(m[1]) : undefined;
    };
    const b = `batch="${id.replace('batch/', '')}",endpoint="${ep}"`;
    expect(value('sluice_batch_inputs', b)).toBe(40);
    expect(value('sluice_batch_outcomes_total', `${b},status="COMPLETED"`)).toBe(summary.counts.byStatus.COMPLETED);
    expect(value('sluice_batch_outcomes_total', `${b},status="FAILED"`)).toBe(5);
    expect(value('sluice_batch_spend_usd', b)).toBeCloseTo(summary.spend, 6);
    expect(value('sluice_batch_max_cost_usd', b)).toBe(100);
    // The pipeline's: inputs by outcome, each stage's jobs by outcome and its spend (what `sluice pipeline status` shows).
    const p = 'pipeline="metrics-p"';
    expect(value('sluice_pipeline_inputs', p)).toBe(24);
    expect(value('sluice_pipeline_outcomes_total', `${p},status="FAILED"`)).toBe(4);
    expect(value('sluice_pipeline_outcomes_total', `${p},status="SKIPPED"`)).toBe(4);
    expect(value('sluice_pipeline_stage_outcomes_total', `${p},stage="first",status="COMPLETED"`)).toBe(24);
    expect(value('sluice_pipeline_stage_outcomes_total', `${p},stage="second",status="FAILED"`)).toBe(4);
    expect(value('sluice_pipeline_stage_outcomes_total', `${p},stage="second",status="COMPLETED"`)).toBe(16);
    const stageSpend = (await pipelines.state(pipelineId)).stages.reduce((sum, st) => sum + (st.batch?.spend ?? 0), 0);
    expect(value('sluice_pipeline_spend_usd', p)).toBeCloseTo(stageSpend, 6);
    expect(value('sluice_pipeline_max_cost_usd', p)).toBe(1000);
    // 35 sleeps and the echo job completed on the platform; each failing input failed at least once.
    expect(value('sluice_platform_jobs_finished_total', `endpoint="${ep}",status="COMPLETED"`)).toBe(36);
    expect(value('sluice_platform_jobs_finished_total', `endpoint="${ep}",status="FAILED"`)).toBeGreaterThanOrEqual(5);
    expect(value('sluice_platform_queue_delay_seconds_count', `endpoint="${ep}"`)).toBeGreaterThanOrEqual(41);
    expect(value('sluice_platform_endpoint_workers', `endpoint="${ep}",name="metrics",bound="max"`)).toBeDefined();

    await pipelines.close();

    const queries = [...dashboardQueries(), ...ruleQueries()];
    const wanted = new Map<string, string>();
    for (const q of queries) for (const n of metricNames(q.expr)) wanted.set(n, q.where);
    for (const v of dashboardVariableMetrics()) wanted.set(v.expr, v.where);
    expect(wanted.size).toBeGreaterThan(30);
    const missing = [...wanted]
      .filter(([n]) => !PROMETHEUS_OWN.has(n) && !seen.has(n))
      .filter(([n]) => !(ON_EVENT.has(n) && new RegExp(`^# TYPE ${n} `, 'm').test(declared)))
      .map(([n, where]) => `${n} (${where})`);
    expect(missing).toEqual([]);
  }, 180_000);
});
