/** A daemon's identity (`pid@host:port`): a process of this host that no longer runs is known gone, nothing else is. */
import { hostname } from 'node:os';
import { describe, expect, it } from 'vitest';
import { daemonIdentity, goneHere } from '../../worker/daemon-identity';

/** Above Linux's largest pid (2^22) and macOS's: no process has it. */
const NO_SUCH_PID = 2 ** 22 + 1;
const here = hostname();

describe("a daemon's identity", () => {
  it('names this process, this host and the port', () => {
    expect(daemonIdentity(8001)).toBe(`${process.pid}@${here}:8001`);
  });

  it('knows gone only a process of this host that does not run', () => {
    expect(goneHere(`${NO_SUCH_PID}@${here}:8002`)).toBe(true);
    expect(goneHere(`${process.pid}@${here}:8002`)).toBe(false);
    expect(goneHere(`${process.ppid}@${here}:8002`)).toBe(false);
    expect(goneHere(`${NO_SUCH_PID}@elsewhere:8002`)).toBe(false);
    expect(goneHere('a-custom-identity')).toBe(false);
  });
});
