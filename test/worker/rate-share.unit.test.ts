/** The rate share's count of live daemons: pollers seen lately, by identity; a daemon of this host whose process is gone is not counted. */
import { hostname } from 'node:os';
import { type Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { liveDaemons } from '../../worker/rate-share';

/** Above Linux's largest pid (2^22) and macOS's: no process has it. */
const NO_SUCH_PID = 2 ** 22 + 1;
const here = hostname();

/** A client whose task queue has these pollers, each last seen `agoMs` before now. */
function clientWith(pollers: { identity: string; agoMs: number }[]): Client {
  const describeTaskQueue = () =>
    Promise.resolve({
      pollers: pollers.map((p) => {
        const at = Date.now() - p.agoMs;
        return { identity: p.identity, lastAccessTime: { seconds: Math.floor(at / 1000), nanos: (at % 1000) * 1e6 } };
      }),
    });
  return { workflowService: { describeTaskQueue } } as unknown as Client;
}

describe('the rate share', () => {
  it('counts this daemon and every other seen within liveMs, but not one of this host whose pid is gone', async () => {
    const me = `${process.pid}@${here}:8001`;
    const client = clientWith([
      { identity: me, agoMs: 10 },
      { identity: `1@other-host:8001`, agoMs: 20_000 }, // another host: never known gone
      { identity: `${NO_SUCH_PID}@${here}:8002`, agoMs: 1_000 }, // killed here, seen a second ago
      { identity: `2@other-host:8001`, agoMs: 80_000 }, // not seen within liveMs
    ]);
    expect(await liveDaemons(client, 'default', 'q', me, 75_000)).toBe(2);
  });
});
