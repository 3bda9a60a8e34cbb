/**
 * When the endpoint's rate budget holds a step's submissions (activities/batch/submitter.ts): the
 * step reports `rate-budget` for a hold of 100 ms or more, and stops sending new lines (they come
 * back deferred) only once its submissions were held 2 s in all: a short hold (a 429's pause) costs
 * its own time, not every line the step sends after 2 s.
 */
import { describe, expect, it } from 'vitest';
import { Submitter, type Submitted } from '../../activities/batch/submitter';
import { type StepRequest } from '../../activities/batch/types';
import { QueueClient, RateBudget } from '../../platform-api';
import { type HttpRequest, type HttpResponse } from '../../platform-api/http';
import { type ObjectStore } from '../../results/store/object-store';

const req = { run: { workflowId: 'batch/held', runId: 'r1' }, seq: 1, endpointId: 'ep' } as StepRequest;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const store = {
  lines: () => Promise.resolve([]),
  append: () => Promise.resolve(),
} as unknown as ObjectStore;

/** A step's submitter on the real queue client and rate budget, its HTTP a service that answers each `/run` at once. */
async function submitter(): Promise<{ sub: Submitter; budget: RateBudget }> {
  const budget = new RateBudget();
  const queue = new QueueClient({ baseUrl: 'http://127.0.0.1:9/v2', apiKey: 'k', rateBudget: budget });
  const send = async (r: HttpRequest): Promise<HttpResponse> => {
    const i = (JSON.parse(r.body!) as { input: { i: number } }).input.i;
    return { status: 200, body: { id: `j${i}`, status: 'IN_QUEUE' }, notJson: false, headers: {} };
  };
  Object.assign(queue as unknown as { http: unknown }, { http: { send } });
  const sub = await Submitter.open(queue, store, req, undefined);
  // As the step sets it (step.ts startStep), without the priority board.
  sub.yieldIf = () => sub.heldLong;
  return { sub, budget };
}

const submit = (sub: Submitter, from: number, n: number): Promise<Submitted[]> =>
  Promise.all(Array.from({ length: n }, (_, k) => sub.submit(from + k, { input: { i: from + k } }, 1, 'submit')));
const sent = (rs: Submitted[]) => rs.filter((r) => r !== undefined && 'id' in r).length;

describe.concurrent('a step held by the rate budget', () => {
  it('after a short hold, still sends its lines 2 s later: the hold counts its own time', async () => {
    const { sub, budget } = await submitter();
    budget.pause('run', 'ep', 300);
    expect(sent(await submit(sub, 0, 3))).toBe(3);
    expect(sub.held).toBe(true);
    await sleep(2000);
    expect(sent(await submit(sub, 3, 3))).toBe(3);
    expect(sub.heldLong).toBe(false);
  });

  it('once held 2 s in all, its lines come back deferred (undefined)', async () => {
    const { sub, budget } = await submitter();
    budget.pause('run', 'ep', 2100);
    // The first call's turn comes before any wait is counted: sent; the others are withdrawn unsent.
    const rs = await submit(sub, 0, 4);
    expect(sent(rs)).toBe(1);
    expect(rs.filter((r) => r === undefined)).toHaveLength(3);
    expect(sub.heldLong).toBe(true);
    expect(await sub.submit(9, { input: { i: 9 } }, 1, 'submit')).toBeUndefined();
  });
});
