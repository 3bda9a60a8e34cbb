/** The daemon's memory of its batch submissions' jobs (worker/webhook-trust.ts): bounded, and forgotten whole. */
import { describe, expect, it } from 'vitest';
import { BatchBindings } from '../../worker/webhook-trust';

const run = { workflowId: 'batch-1', runId: 'r1' };

describe('BatchBindings', () => {
  it('binds a submission to its job, and forgets both once the job completed', () => {
    const b = new BatchBindings();
    b.set(run, 3, 1, 'job-a');
    expect(b.get(run, 3, 1)).toBe('job-a');
    expect(b.hasJob('job-a')).toBe(true);
    b.delete(run, 3, 1);
    expect(b.get(run, 3, 1)).toBeUndefined();
    expect(b.hasJob('job-a')).toBe(false);
    expect(b.size).toBe(0);
  });

  it('keeps a job named by two submissions (a service ignoring idempotency keys) until both are forgotten', () => {
    const b = new BatchBindings();
    b.set(run, 1, 1, 'job-x');
    b.set(run, 2, 1, 'job-x');
    b.delete(run, 1, 1);
    expect(b.hasJob('job-x')).toBe(true);
    b.delete(run, 2, 1);
    expect(b.hasJob('job-x')).toBe(false);
  });

  it('rebinding a submission forgets its former job', () => {
    const b = new BatchBindings();
    b.set(run, 1, 1, 'job-old');
    b.set(run, 1, 1, 'job-new');
    expect(b.hasJob('job-old')).toBe(false);
    expect(b.get(run, 1, 1)).toBe('job-new');
  });

  it('holds at most 100,000 submissions, the oldest forgotten first with its job', () => {
    const b = new BatchBindings();
    for (let i = 0; i <= 100_000; i++) b.set(run, i, 1, `job-${i}`);
    expect(b.size).toBe(100_000);
    expect(b.hasJob('job-0')).toBe(false);
    expect(b.get(run, 0, 1)).toBeUndefined();
    expect(b.hasJob('job-100000')).toBe(true);
  });
});
