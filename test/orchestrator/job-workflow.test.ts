import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { orchestratorStack } from '../helpers/orchestrator';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

describe('job workflow: happy paths (real Temporal dev server, platform, workers)', () => {
  let s: Stack;
  beforeAll(async () => {
    s = await orchestratorStack();
  });
  afterAll(() => s.dispose());

  it('webhook mode: completes with the output, times and one attempt', async () => {
    const id = await s.sluice.start({ endpointId: s.platform.examples.echo!.id, input: { hello: 'temporal' } });
    const r = await s.sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(r.output).toEqual({ hello: 'temporal' });
    expect(r.attempts).toHaveLength(1);
    expect(r.attempts[0]).toMatchObject({ number: 1, how: 'submit', status: 'COMPLETED' });
    expect(r.executionTime).toBeGreaterThanOrEqual(0);
  });

  it('polling mode: completes too', async () => {
    const id = await s.sluice.start({ endpointId: s.platform.examples.sleep!.id, input: { ms: 1200 }, options: { completion: 'poll', polling: { initialIntervalMs: 200 } } });
    const r = await s.sluice.result(id);
    expect(r).toMatchObject({ status: 'COMPLETED', output: { slept: 1200 } });
  });
});
