/** The batch and scaler series of /metrics: written from the states their workflows answer, an ended batch's dropped after the retention. */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { type BatchState, type ScalerState } from '../../contracts';
import { BatchMetrics } from '../../worker/batch-metrics';
import { ScalerMetrics } from '../../worker/scaler-metrics';

const batch = (id: string, over: Partial<BatchState> = {}): BatchState => ({
  batchId: id,
  endpointId: 'ep1',
  phase: 'running',
  counts: {
    total: 100,
    read: 40,
    submitted: 40,
    inFlight: 12,
    waitingRetry: 1,
    done: 27,
    byStatus: { COMPLETED: 25, FAILED: 2 },
    retries: 3,
    rateLimited: 0,
    duplicatesAvoided: 0,
  },
  waiting: ['window-full'],
  spend: 1.5,
  submitRate: 1,
  completeRate: 1,
  startedAt: 0,
  lastErrors: [],
  runs: 1,
  options: { concurrency: 12, maxCost: 2 },
  outDir: '/tmp/out',
  ...over,
});

const sample = (text: string, name: string, labels: string): number | undefined => {
  const m = new RegExp(`^${name}\\{${labels}\\} ([\\d.e+-]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : undefined;
};

describe('batch series', () => {
  it('follow the state: inputs by outcome, in flight, spend and its cap, phase, waiting reasons', async () => {
    const registry = new Registry();
    const m = new BatchMetrics(registry);
    m.set(batch('b1'), 0);
    const text = await registry.metrics();
    const l = 'batch="b1",endpoint="ep1"';
    expect(sample(text, 'sluice_batch_outcomes_total', `${l},status="COMPLETED"`)).toBe(25);
    expect(sample(text, 'sluice_batch_outcomes_total', `${l},status="FAILED"`)).toBe(2);
    expect(sample(text, 'sluice_batch_inputs', l)).toBe(100);
    expect(sample(text, 'sluice_batch_in_flight', l)).toBe(12);
    expect(sample(text, 'sluice_batch_spend_usd', l)).toBe(1.5);
    expect(sample(text, 'sluice_batch_max_cost_usd', l)).toBe(2);
    expect(sample(text, 'sluice_batch_phase', `${l},phase="running"`)).toBe(1);
    expect(sample(text, 'sluice_batch_waiting', `${l},reason="window-full"`)).toBe(1);
    expect(text).toMatch(/^# TYPE sluice_batch_outcomes_total counter$/m);
  });

  it('of an ended batch stay with phase done for the retention, then go', async () => {
    const registry = new Registry();
    const m = new BatchMetrics(registry, { retentionMs: 1000 });
    m.set(batch('b1'), 0);
    m.set(batch('b2', { options: { concurrency: 5 } }), 0);
    m.ended('b1', 100);
    expect(m.running()).toEqual(['b2']);
    let text = await registry.metrics();
    expect(sample(text, 'sluice_batch_phase', 'batch="b1",endpoint="ep1",phase="done"')).toBe(1);
    expect(sample(text, 'sluice_batch_phase', 'batch="b1",endpoint="ep1",phase="running"')).toBeUndefined();
    expect(sample(text, 'sluice_batch_max_cost_usd', 'batch="b2",endpoint="ep1"')).toBeUndefined();
    m.prune(1000);
    expect(m.size).toBe(2);
    m.prune(1101);
    expect(m.size).toBe(1);
    text = await registry.metrics();
    expect(text).not.toMatch(/batch="b1"/);
    expect(sample(text, 'sluice_batch_in_flight', 'batch="b2",endpoint="ep1"')).toBe(12);
  });
});

describe('scaler series', () => {
  it('show bounds, target, load and fallback of the running scalers only', async () => {
    const registry = new Registry();
    const m = new ScalerMetrics(registry);
    const s = {
      endpointId: 'ep1',
      phase: 'running',
      bounds: { workersMin: 1, workersMax: 4 },
      target: 3,
      load: { at: 0, ok: true, inQueue: 7, inProgress: 2, running: 2, idle: 0, initializing: 1, completed: 5 },
      decisions: [],
      backlogs: [],
      fallbackActive: true,
      healthFailures: 4,
      spendCapBinding: false,
      config: { maxSpendPerHour: 3 },
      writes: 6,
      ticks: 10,
      runs: 1,
      startedAt: 0,
    } as unknown as ScalerState;
    m.set([s]);
    let text = await registry.metrics();
    expect(sample(text, 'sluice_scaler_workers_min', 'endpoint="ep1"')).toBe(1);
    expect(sample(text, 'sluice_scaler_workers_max', 'endpoint="ep1"')).toBe(4);
    expect(sample(text, 'sluice_scaler_target', 'endpoint="ep1"')).toBe(3);
    expect(sample(text, 'sluice_scaler_fallback_active', 'endpoint="ep1"')).toBe(1);
    expect(sample(text, 'sluice_scaler_load_jobs', 'endpoint="ep1",status="in_queue"')).toBe(7);
    expect(sample(text, 'sluice_scaler_load_workers', 'endpoint="ep1",status="initializing"')).toBe(1);
    expect(sample(text, 'sluice_scaler_max_spend_per_hour_usd', 'endpoint="ep1"')).toBe(3);
    expect(sample(text, 'sluice_scaler_bound_writes_total', 'endpoint="ep1"')).toBe(6);
    m.set([]);
    text = await registry.metrics();
    expect(text).not.toMatch(/endpoint="ep1"/);
  });
});
