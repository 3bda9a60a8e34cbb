/**
 * The job workflow through each fault of issue 19's table (the rows of the batch's fault test, on
 * the platform's seeded fault mode, and with every webhook lost): each of the jobs started at once
 * ends with exactly one outcome, COMPLETED with its own output after one attempt, and the platform
 * holds exactly one remote job per job, no idempotency key used twice. No timing is asserted.
 */
import { describe, expect, it } from 'vitest';
import { echoEndpoint, faultyStack, platformJobsByInput, sharedTemporal } from './helpers';
import { expectFaultsHappened, ROWS } from './rows';

/** Jobs per row: enough calls and webhooks that each row's faults are drawn (the seed fixes which). */
const JOBS = 48;

describe('the job workflow under each fault: exactly one outcome, no duplicate remote job', () => {
  // One Temporal server for the file: each row's stack (platform, daemon) is its own, all its workflows ended.
  const temporal = sharedTemporal();
  it.each(ROWS)(
    '$name',
    async (row) => {
      const s = await faultyStack(row, temporal.env);
      try {
        const endpointId = await echoEndpoint(s, 2);
        const ids = await Promise.all(
          Array.from({ length: JOBS }, (_, i) => s.sluice.start({ endpointId, input: { i } })),
        );
        const results = await Promise.all(ids.map((id) => s.sluice.result(id)));
        results.forEach((r, i) => {
          expect(r.status, `job ${i}`).toBe('COMPLETED');
          expect(r.output, `job ${i}`).toEqual({ i });
          expect(r.attempts, `job ${i}`).toHaveLength(1);
        });
        const { byInput, keyShared } = platformJobsByInput(s, endpointId);
        expect(keyShared).toBe(0);
        expect(byInput.size).toBe(JOBS);
        for (const [i, remote] of byInput)
          expect(remote, `platform jobs of job ${i}`).toEqual([results[i]!.attempts[0]!.remoteJobId]);
        await expectFaultsHappened(s, row);
      } finally {
        await s.dispose();
      }
    },
    150_000,
  );
});
