import { describe, expect, it } from 'vitest';
import { Deadlines } from '../../platform/jobs/deadlines';

describe('the deadline heap of the sweeper', () => {
  it('hands out due entries in time order and keeps the later ones', () => {
    const d = new Deadlines();
    const at: Record<string, number> = { a: 50, b: 10, c: 40, d: 30, e: 20, f: 60, g: 10 };
    for (const [id, t] of Object.entries(at)) d.push(t, id);
    const first = d.popDue(35);
    expect(first.map((id) => at[id])).toEqual([10, 10, 20, 30]);
    expect(new Set(first)).toEqual(new Set(['b', 'g', 'e', 'd']));
    expect(d.size).toBe(3);
    expect(d.popDue(35)).toEqual([]);
    expect(d.popDue(1000)).toEqual(['c', 'a', 'f']);
    expect(d.size).toBe(0);
  });

  it('stays ordered under many random pushes', () => {
    const d = new Deadlines();
    const times = Array.from({ length: 2000 }, (_, i) => ((i * 7919) % 1000) + 1);
    times.forEach((t, i) => d.push(t, String(i)));
    const popped = d.popDue(1000).map((id) => times[Number(id)]!);
    expect(popped).toHaveLength(2000);
    expect(popped).toEqual([...popped].sort((x, y) => x - y));
  });
});
