/**
 * Webhooks that beat their wait (a flaky job fails at once, and again right after each `/retry`):
 * each wait gets its outcome exactly once, and the Temporal runtime warns of nothing — no activity
 * completed by the worker after the webhook receiver had completed it by id ("Activity not found
 * on completion", seen in `npm start`'s first run).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratorStack } from '../helpers/orchestrator';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

describe('job workflow: webhooks that come before their wait registers', () => {
  /** What the Temporal runtime (core and SDK) logs at WARN and above while the jobs run. */
  const warnings: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'flaky-'));
  let s: Stack;
  beforeAll(async () => {
    Runtime.install({
      logger: new DefaultLogger('WARN', (e) => warnings.push(`[${e.level}] ${e.message} ${JSON.stringify(e.meta)}`)),
      telemetryOptions: { logging: { filter: { core: 'WARN', other: 'WARN' }, forward: {} } },
    });
    s = await orchestratorStack();
  });
  afterAll(async () => {
    await s.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  it('flaky jobs retried with /retry complete with every attempt, and the runtime logs no warning', async () => {
    // Rounds of jobs together: the pod answers each /retry within milliseconds, so webhooks often
    // arrive while the wait activity is dispatched but not yet registered (before the fix: several
    // warnings in every run of this test).
    for (let round = 0; round < 4; round++) {
      const ids = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          s.sluice.start({
            endpointId: s.platform.examples.flaky!.id,
            input: { counterFile: join(dir, `count-${round}-${i}`), failTimes: 2 },
            options: { retry: { maxAttempts: 3, initialBackoffMs: 100 } },
          }),
        ),
      );
      for (const id of ids) {
        const r = await s.sluice.result(id);
        expect(r.attempts.map((a) => `${a.how}:${a.status}`)).toEqual([
          'submit:FAILED',
          'retry:FAILED',
          'retry:COMPLETED',
        ]);
        expect(r.output).toEqual({ attempts: 3 });
      }
    }
    expect(warnings).toEqual([]);
  });
});
