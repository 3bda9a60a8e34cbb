import { describe, expect, it } from 'vitest';
import { saysUnreachable } from '../../worker/runtime';

// Once a daemon stops, the runtime's lines that only say the server went first are dropped (a Ctrl-C reaches the
// Temporal dev server too); every other line still reaches stderr.
describe('saysUnreachable: the core lines a stop drops', () => {
  const cases: Array<[string, string, boolean]> = [
    [
      "the worker's shutdown call on a connection the server closed",
      'shutdown_worker rpc errored during worker shutdown: Status { code: Cancelled, message: "operation was canceled", source: Some(tonic::transport::Error(Transport, hyper::Error(Canceled, "connection closed"))) }',
      true,
    ],
    ['a failed connect', 'Error polling: tcp connect error: Connection refused (os error 111)', true],
    ['an unavailable server', 'Status { code: Unavailable, message: "error trying to connect" }', true],
    [
      'an activity completed after its workflow moved on',
      'Activity not found on completion. This may happen if the activity has already been cancelled',
      false,
    ],
    ['a non-determinism error', 'Nondeterminism error: Activity machine does not handle this event', false],
  ];
  it.each(cases)('%s -> %s', (_what, message, dropped) => {
    expect(saysUnreachable(message)).toBe(dropped);
  });

  it('reads the metadata too', () => {
    expect(saysUnreachable('poll failed', { error: new Error('broken pipe') })).toBe(true);
    expect(saysUnreachable('poll failed', { error: 'bad request' })).toBe(false);
  });
});
