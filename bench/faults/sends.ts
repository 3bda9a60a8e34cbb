/** bench/faults' account of how a row's inputs were sent, read from its results: when they were submitted, and the tail after the last submission. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type BatchResultLine } from '../../contracts';

/** Seconds from the batch's start, each to 0.1 s. */
export interface Sends {
  /** When half, 90 % and all of the inputs had been submitted (first submission, as the workflow recorded it). */
  submitted50: number;
  submitted90: number;
  submittedAll: number;
  /** The last outcome after the last submission: the batch's tail. */
  tail: number;
  /** Longest time between two consecutive first submissions: a pause of the sending. */
  longestGap: number;
  /** Inputs submitted in each second of the run (the sending rate, to see pauses and cuts). */
  perSecond: number[];
}

const s = (ms: number): number => Math.round(ms / 100) / 10;

/** The timeline of the batch started at `t0` (epoch ms) whose results are in `outDir`; undefined without results. */
export function sendsOf(outDir: string, t0: number): Sends | undefined {
  const file = join(outDir, 'results.jsonl');
  if (!existsSync(file)) return undefined;
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as BatchResultLine);
  const sent = lines
    .map((l) => l.submittedAt)
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  if (sent.length === 0) return undefined;
  const at = (q: number): number => s(sent[Math.min(sent.length - 1, Math.ceil(q * sent.length) - 1)]! - t0);
  const lastEnd = Math.max(...lines.map((l) => l.endedAt));
  let gap = 0;
  for (let k = 1; k < sent.length; k++) gap = Math.max(gap, sent[k]! - sent[k - 1]!);
  const perSecond: number[] = [];
  for (const x of sent) {
    const k = Math.max(0, Math.floor((x - t0) / 1000));
    while (perSecond.length <= k) perSecond.push(0);
    perSecond[k]!++;
  }
  return {
    submitted50: at(0.5),
    submitted90: at(0.9),
    submittedAll: at(1),
    tail: s(lastEnd - sent.at(-1)!),
    longestGap: s(gap),
    perSecond,
  };
}
