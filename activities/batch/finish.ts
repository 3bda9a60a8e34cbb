/**
 * The end of a batch: the last outcomes, NOT_SUBMITTED for every input never sent (read from the
 * file in pages), then results.jsonl, dead-letter.jsonl and summary.json in the output directory
 * or `s3://` prefix.
 */
import { batchKeys } from '../../contracts/names';
import { type BatchResultLine, type BatchState, type InputFormat, type Policy, type RunScope } from '../../contracts';
import { type ObjectStore } from '../../results/store/object-store';
import { parseLine } from './input';
import { openedInput, outputStore } from '../../results/batch/locations';
import { mergeOutcomes } from '../../results/batch/outcomes';
import { mergeRetry, subsetOf } from '../../results/batch/rerun';
import { outcomeSegments } from './outcomes';
import { type Cursor, type Final, type LineRef } from './types';

export interface FinishRequest {
  run: RunScope;
  seq: number;
  source: string;
  inputFormat: InputFormat;
  policy?: Policy;
  outDir: string;
  write: Final[];
  /** Lines read but never submitted, and where reading stopped. */
  deferred: LineRef[];
  cursor: Cursor;
  eof: boolean;
  /** Why the rest was not submitted (cancelled, cost cap, deadline). */
  reason: string;
  /** The batch's state, for summary.json (counts are completed here). */
  state: BatchState;
  /** A retry-failed run: only its subset of lines is its own; the other inputs keep their previous outcome. */
  retry?: { attempt: number };
}

export interface FinishResult {
  notSubmitted: number;
  badInput: number;
  results: number;
  deadLetter: number;
  /** A retry-failed run: the counts over every input of the batch (merged with the previous outcomes). */
  overall?: { total: number; byStatus: BatchState['counts']['byStatus'] };
}

const PAGE = 5000;

export async function finishBatch(store: ObjectStore, req: FinishRequest, beat: () => void): Promise<FinishResult> {
  const input = openedInput(req.source);
  const out = outputStore(req.outDir);
  await outcomeSegments(store, req.run, req.seq, req.write, input);
  let notSubmitted = 0;
  let badInput = 0;
  const now = Date.now();
  const unsent = (i: number, text: string): BatchResultLine => {
    const p = parseLine(text, req.inputFormat, req.policy);
    if ('bad' in p) {
      badInput++;
      return {
        index: i,
        status: 'BAD_INPUT',
        error: `line ${i + 1}: ${p.bad}`,
        attempts: 0,
        remoteJobIds: [],
        endedAt: now,
      };
    }
    notSubmitted++;
    return { index: i, status: 'NOT_SUBMITTED', error: req.reason, attempts: 0, remoteJobIds: [], endedAt: now };
  };
  const restKey = (k: number): string =>
    batchKeys.outcomes(req.run, req.seq).replace(/\.jsonl$/, `-rest-${String(k).padStart(6, '0')}.jsonl`);
  let k = 0;
  if (req.deferred.length > 0) {
    const rest: BatchResultLine[] = [];
    for (const d of req.deferred) rest.push(unsent(d.i, await input.readLineAt(d.o, d.l)));
    await store.putLines(restKey(k++), rest);
  }
  const keep = req.retry ? (await subsetOf(store, req.run)).has : undefined;
  let cursor = req.cursor;
  let eof = req.eof;
  while (!eof) {
    beat();
    const page = await input.readLines(cursor, PAGE, keep);
    if (page.lines.length > 0)
      await store.putLines(
        restKey(k++),
        page.lines.map((l) => unsent(l.i, l.text)),
      );
    cursor = page.cursor;
    eof = page.eof || page.lines.length === 0;
  }
  const retried = req.retry ? await mergeRetry(store, req.run, out, req.retry.attempt, beat) : undefined;
  const counts = { ...req.state.counts, byStatus: { ...req.state.counts.byStatus } };
  if (notSubmitted > 0) counts.byStatus.NOT_SUBMITTED = (counts.byStatus.NOT_SUBMITTED ?? 0) + notSubmitted;
  if (badInput > 0) counts.byStatus.BAD_INPUT = (counts.byStatus.BAD_INPUT ?? 0) + badInput;
  counts.done += notSubmitted + badInput;
  let summary: BatchState = { ...req.state, counts };
  let overall: FinishResult['overall'];
  if (retried) {
    // The summary counts every input; the retry's own outcomes are its `retry.byStatus`.
    const all = { total: retried.results, byStatus: retried.byStatus };
    overall = all;
    summary = {
      ...summary,
      counts: { ...counts, total: all.total, done: all.total, byStatus: all.byStatus },
      ...(summary.retry ? { retry: { ...summary.retry, byStatus: counts.byStatus } } : {}),
    };
  }
  // The summary is written beside the merge (its counts are the workflow's): a batch's tail waits on
  // one file's durable write, not three in a row (issue 23). The batch is done when this activity is.
  const [merged] = await Promise.all([
    retried ?? mergeOutcomes(store, req.run, out, beat),
    out.put('summary.json', summary),
  ]);
  return {
    notSubmitted,
    badInput,
    results: merged.results,
    deadLetter: merged.deadLetter,
    ...(overall ? { overall } : {}),
  };
}
