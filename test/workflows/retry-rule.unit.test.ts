/** The retry rule (contracts/retry-rule.ts) as a table: policy + outcome + attempt → decision. Pure. */
import { describe, expect, it } from 'vitest';
import { JobRetryOptions } from '../../contracts';
import { RETENTION_MARGIN_MS } from '../../contracts/names';
import {
  ACTIVITY_RETRY,
  RESULT_GONE,
  backoffMs,
  decideRetry,
  retainedUntil,
  retryOrResubmit,
  type RetryDecision,
  type RetryPolicy,
  type RunOutcome,
} from '../../contracts/retry-rule';

/** The defaults of `JobRetryOptions`: 3 attempts, 1 s doubling up to 60 s, FAILED and TIMED_OUT retried. */
const defaults: RetryPolicy = JobRetryOptions.parse({});
const policy = (p: Partial<RetryPolicy>): RetryPolicy => ({ ...defaults, ...p });
const failed: RunOutcome = { status: 'FAILED', error: 'boom', errorType: 'RuntimeError' };

const rows: [string, RetryPolicy, RunOutcome, number, RetryDecision][] = [
  ['COMPLETED is never retried', defaults, { status: 'COMPLETED' }, 1, { retry: false, reason: 'not-failed' }],
  ['CANCELLED is never retried', defaults, { status: 'CANCELLED' }, 1, { retry: false, reason: 'not-failed' }],
  ['FAILED, first attempt: 1 s', defaults, failed, 1, { retry: true, delayMs: 1000, next: 2 }],
  ['FAILED, second attempt: 2 s', defaults, failed, 2, { retry: true, delayMs: 2000, next: 3 }],
  ['FAILED, last attempt: no more', defaults, failed, 3, { retry: false, reason: 'attempts-used' }],
  ['past the last attempt', defaults, failed, 4, { retry: false, reason: 'attempts-used' }],
  ['TIMED_OUT is retried too', defaults, { status: 'TIMED_OUT' }, 1, { retry: true, delayMs: 1000, next: 2 }],
  [
    'a status left out of retryOn',
    policy({ retryOn: ['FAILED'] }),
    { status: 'TIMED_OUT' },
    1,
    { retry: false, reason: 'status-not-retried' },
  ],
  ['maxAttempts 1: never', policy({ maxAttempts: 1 }), failed, 1, { retry: false, reason: 'attempts-used' }],
  [
    'the backoff grows by the coefficient',
    policy({ maxAttempts: 10, initialBackoffMs: 500, backoffCoefficient: 3 }),
    failed,
    3,
    { retry: true, delayMs: 4500, next: 4 },
  ],
  [
    'the backoff is capped',
    policy({ maxAttempts: 10, initialBackoffMs: 1000, maxBackoffMs: 5000 }),
    failed,
    6,
    { retry: true, delayMs: 5000, next: 7 },
  ],
  [
    'a non-retryable error type, by its whole name',
    policy({ nonRetryableErrorTypes: ['RuntimeError'] }),
    failed,
    1,
    { retry: false, reason: 'non-retryable-error' },
  ],
  [
    'a non-retryable error type, by its dotted tail',
    policy({ nonRetryableErrorTypes: ['BadPrompt'] }),
    { status: 'FAILED', errorType: 'mymodule.BadPrompt' },
    1,
    { retry: false, reason: 'non-retryable-error' },
  ],
  [
    'a name that is only a suffix of the type does not match',
    policy({ nonRetryableErrorTypes: ['Prompt'] }),
    { status: 'FAILED', errorType: 'mymodule.BadPrompt' },
    1,
    { retry: true, delayMs: 1000, next: 2 },
  ],
  [
    'a pattern over the error text',
    policy({ nonRetryableErrorPatterns: ['^bo+m$'] }),
    failed,
    1,
    { retry: false, reason: 'non-retryable-error' },
  ],
  [
    'a pattern that does not match',
    policy({ nonRetryableErrorPatterns: ['quota'] }),
    failed,
    1,
    { retry: true, delayMs: 1000, next: 2 },
  ],
  [
    'a pattern, and no error text',
    policy({ nonRetryableErrorPatterns: ['.*'] }),
    { status: 'FAILED' },
    1,
    { retry: true, delayMs: 1000, next: 2 },
  ],
  [
    'a policy recorded before the non-retryable options (absent)',
    { maxAttempts: 3, initialBackoffMs: 1000, backoffCoefficient: 2, maxBackoffMs: 60_000, retryOn: ['FAILED'] },
    failed,
    1,
    { retry: true, delayMs: 1000, next: 2 },
  ],
  [
    'a run whose cancel was requested',
    defaults,
    { ...failed, cancelRequested: true },
    1,
    { retry: false, reason: 'cancel-requested' },
  ],
  [
    'a non-retryable error outranks the attempts left',
    policy({ nonRetryableErrorTypes: ['RuntimeError'] }),
    failed,
    3,
    { retry: false, reason: 'non-retryable-error' },
  ],
];

describe('the retry rule (policy, outcome, attempt → decision)', () => {
  it.each(rows)('%s', (_name, p, outcome, attempt, decision) => {
    expect(decideRetry(p, outcome, attempt)).toEqual(decision);
  });

  it('waits what the decision says before each attempt (backoffMs)', () => {
    const p = policy({ maxAttempts: 6, initialBackoffMs: 1000, backoffCoefficient: 2, maxBackoffMs: 10_000 });
    expect([1, 2, 3, 4, 5].map((n) => backoffMs(p, n))).toEqual([1000, 2000, 4000, 8000, 10_000]);
  });
});

describe('/retry or resubmit', () => {
  const observedAt = 1_000_000;
  const until = retainedUntil(observedAt, 30 * 60_000);
  const rows: [string, number, number, 'retry' | 'resubmit'][] = [
    ['just after the run ended', observedAt + 1, until, 'retry'],
    ['a moment before the margin', until - 1, until, 'retry'],
    ['at the margin before the result expires', until, until, 'resubmit'],
    ['after the result expired', observedAt + 30 * 60_000, until, 'resubmit'],
    ['the result is gone (a refused /retry)', observedAt + 1, RESULT_GONE, 'resubmit'],
  ];
  it.each(rows)('%s', (_name, now, u, how) => {
    expect(retryOrResubmit(now, u)).toBe(how);
  });

  it('keeps a margin before the retention ends', () => {
    expect(until).toBe(observedAt + 30 * 60_000 - RETENTION_MARGIN_MS);
  });
});

describe("sluice's activity retry", () => {
  it('is 1 s, doubling, at most 30 s, never for the failure types that end a job', () => {
    expect(ACTIVITY_RETRY).toEqual({
      initialInterval: '1s',
      backoffCoefficient: 2,
      maximumInterval: '30s',
      nonRetryableErrorTypes: expect.arrayContaining(['JOB_EXPIRED', 'ENDPOINT_NOT_FOUND', 'RETRY_REFUSED']),
    });
    expect(Object.isFrozen(ACTIVITY_RETRY)).toBe(true);
  });
});
