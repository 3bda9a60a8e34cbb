/**
 * The inbox's memory of its own daemon's records (results/batch/inbox-recent.ts): records are given
 * from a group's start on, never from a position it does not hold (a gap, a trimmed or shed group, the
 * middle of a group: the log is read instead), and it stays within its bytes.
 */
import { describe, expect, it } from 'vitest';
import { RecentRecords } from '../../results/batch/inbox-recent';
import { type InboxRecord } from '../../results/batch/inbox';

const r = (id: string): InboxRecord => ({ id, status: 'COMPLETED' }) as InboxRecord;
const ids = (got: { records: InboxRecord[]; at: number } | undefined) =>
  got && { ids: got.records.map((x) => x.id), at: got.at };

describe('RecentRecords', () => {
  it('gives the records from a group start on, and nothing for a position it does not hold', () => {
    const m = new RecentRecords();
    m.add('log', [r('a'), r('b')], { from: 0, to: 20, bytes: 20 });
    m.add('log', [r('c')], { from: 20, to: 30, bytes: 10 });
    expect(ids(m.since('log', 0))).toEqual({ ids: ['a', 'b', 'c'], at: 30 });
    expect(ids(m.since('log', 20))).toEqual({ ids: ['c'], at: 30 });
    expect(ids(m.since('log', 30))).toEqual({ ids: [], at: 30 });
    expect(m.since('log', 10)).toBeUndefined(); // inside a group
    expect(m.since('other', 0)).toBeUndefined();
  });

  it('drops what it held when a group does not follow the last (a gap), and what a step opened past', () => {
    const m = new RecentRecords();
    m.add('log', [r('a')], { from: 0, to: 10, bytes: 10 });
    m.add('log', [r('b')], { from: 15, to: 25, bytes: 10 });
    expect(m.since('log', 0)).toBeUndefined();
    expect(ids(m.since('log', 15))).toEqual({ ids: ['b'], at: 25 });
    m.add('log', [r('c')], { from: 25, to: 35, bytes: 10 });
    m.trim('log', 25);
    expect(m.since('log', 15)).toBeUndefined();
    expect(ids(m.since('log', 25))).toEqual({ ids: ['c'], at: 35 });
  });

  it('sheds the oldest groups of the least recently appended logs beyond its bytes', () => {
    const m = new RecentRecords(25);
    m.add('old', [r('a')], { from: 0, to: 10, bytes: 10 });
    m.add('new', [r('b')], { from: 0, to: 10, bytes: 10 });
    m.add('new', [r('c')], { from: 10, to: 20, bytes: 10 });
    expect(m.since('old', 0)).toBeUndefined();
    expect(ids(m.since('new', 0))).toEqual({ ids: ['b', 'c'], at: 20 });
    m.add('new', [r('d')], { from: 20, to: 30, bytes: 10 });
    expect(m.since('new', 0)).toBeUndefined();
    expect(ids(m.since('new', 10))).toEqual({ ids: ['c', 'd'], at: 30 });
  });
});
