/** Pods boot a few at a time (platform/pods/boot-gate.ts): a slot frees when a pod is ready, exits, or has held it too long. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BootGate } from '../../platform/pods/boot-gate';

describe('the boot gate', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('launches at most max at once, the next as one is ready or exits, oldest first', () => {
    const launched: string[] = [];
    const gate = new BootGate<string>((p) => launched.push(p), { max: 2, holdMs: 1500 });
    for (const p of ['a', 'b', 'c', 'd', 'e']) gate.admit(p);
    expect(launched).toEqual(['a', 'b']);
    expect(gate.queued).toBe(3);
    gate.done('b'); // ready
    expect(launched).toEqual(['a', 'b', 'c']);
    gate.done('e'); // stopped while waiting: leaves the line, frees no slot
    expect(launched).toEqual(['a', 'b', 'c']);
    gate.done('a'); // exited
    expect(launched).toEqual(['a', 'b', 'c', 'd']);
    expect(gate.queued).toBe(0);
  });

  it('frees the slot of a pod that boots for longer than holdMs (a model loading)', () => {
    const launched: string[] = [];
    const gate = new BootGate<string>((p) => launched.push(p), { max: 1, holdMs: 500 });
    gate.admit('slow');
    gate.admit('next');
    vi.advanceTimersByTime(400);
    expect(launched).toEqual(['slow']);
    vi.advanceTimersByTime(200);
    expect(launched).toEqual(['slow', 'next']);
    gate.done('slow'); // ready at last: frees nothing more
    expect(launched).toEqual(['slow', 'next']);
  });

  it('with max 0, launches every pod at once', () => {
    const launched: string[] = [];
    const gate = new BootGate<string>((p) => launched.push(p), { max: 0 });
    for (const p of ['a', 'b', 'c']) gate.admit(p);
    expect(launched).toEqual(['a', 'b', 'c']);
  });
});
