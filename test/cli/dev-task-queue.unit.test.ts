/** Two dev stacks on one shared cluster (TEMPORAL_ADDRESS) never poll the same task queue: it is one per data dir. */
import { describe, expect, it } from 'vitest';
import { stackTaskQueue } from '../../client/cli/dev/stack';
import { TASK_QUEUE } from '../../contracts/names';

describe("the dev stack's task queue", () => {
  it('is the default with the embedded server, one per data dir on a shared cluster, and SLUICE_TASK_QUEUE when set', () => {
    expect(stackTaskQueue('/tmp/a', {})).toBe(TASK_QUEUE);
    const shared = { TEMPORAL_ADDRESS: 'temporal:7233' };
    expect(stackTaskQueue('/tmp/a', shared)).not.toBe(TASK_QUEUE);
    expect(stackTaskQueue('/tmp/a', shared)).not.toBe(stackTaskQueue('/tmp/b', shared));
    expect(stackTaskQueue('/tmp/a', shared)).toBe(stackTaskQueue('/tmp/a/', shared));
    expect(stackTaskQueue('/tmp/a', { ...shared, SLUICE_TASK_QUEUE: 'mine' })).toBe('mine');
  });
});
