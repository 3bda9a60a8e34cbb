/**
 * The end of a pipeline's run: ends every input never read (NOT_SUBMITTED, or BAD_INPUT), then merges the
 * steps' segments into results.jsonl, dead-letter.jsonl and stages/<name>.jsonl, and writes summary.json.
 */
import { pipelineKeys, stageDirs } from '../../contracts/names';
import { type PipelineResultLine, type PipelineState, type RunScope } from '../../contracts';
import { batchInput, outputStore } from '../../results/batch/locations';
import { segmentLines, writeCounted } from '../../results/batch/outcomes';
import { type ObjectStore } from '../../results/store/object-store';
import { forgetAllContexts } from './contexts';
import { forgetEnded } from './forget';
import { specOf } from './plan';
import { type Cursor } from './types';

export interface PipelineFinishRequest {
  run: RunScope;
  seq: number;
  source: string;
  outDir: string;
  /** Where reading stopped (the rest was never read). */
  cursor: Cursor;
  eof: boolean;
  /** Why the rest was not submitted. */
  reason: string;
  state: PipelineState;
}

export interface PipelineFinishResult {
  notSubmitted: number;
  badInput: number;
  results: number;
}

const PAGE = 5000;

/** Once each stage's batch has written its files: ends the inputs never read, writes the output files. */
export async function finishPipeline(
  store: ObjectStore,
  req: PipelineFinishRequest,
  beat: () => void,
): Promise<PipelineFinishResult> {
  const { definition: def, attempt } = await specOf(store, req.run);
  // Each stage's batch ends once its closed feed has every outcome: its summary.json is its last write.
  for (const s of def.stages) {
    const stageOut = outputStore(stageDirs(req.outDir, s.name, attempt).out);
    while (!(await stageOut.has('summary.json'))) {
      beat();
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await forgetEnded(store, req.run, req.seq, beat);
  await forgetAllContexts(store, req.run);
  const input = batchInput(req.source);
  const out = outputStore(req.outDir);
  let notSubmitted = 0;
  let badInput = 0;
  const now = Date.now();
  let cursor = req.cursor;
  let eof = req.eof;
  for (let k = 0; !eof; k++) {
    beat();
    const page = await input.readLines(cursor, PAGE);
    const lines = page.lines.map((l): PipelineResultLine => {
      // A rerun's line is a failed input's context, with its own index.
      if (attempt !== undefined) {
        notSubmitted++;
        const index = (JSON.parse(l.text) as { index: number }).index;
        return { index, status: 'NOT_SUBMITTED', error: req.reason, stages: {}, endedAt: now };
      }
      if (!isObjectLine(l.text)) {
        badInput++;
        return {
          index: l.i,
          status: 'BAD_INPUT',
          error: `line ${l.i + 1}: not a JSON object`,
          stages: {},
          endedAt: now,
        };
      }
      notSubmitted++;
      return { index: l.i, status: 'NOT_SUBMITTED', error: req.reason, stages: {}, endedAt: now };
    });
    if (lines.length > 0) {
      const key = pipelineKeys
        .results(req.run, req.seq)
        .replace(/\.jsonl$/, `-rest-${String(k).padStart(6, '0')}.jsonl`);
      await store.putLines(key, lines);
    }
    cursor = page.cursor;
    eof = page.eof || page.lines.length === 0;
  }
  const results = await writeCounted(
    out,
    'results.jsonl',
    segmentLines(store, pipelineKeys.resultsPrefix(req.run), beat),
  );
  await writeCounted(out, 'dead-letter.jsonl', segmentLines(store, pipelineKeys.deadLetterPrefix(req.run), beat));
  for (const s of def.stages)
    await writeCounted(
      out,
      `stages/${s.name}.jsonl`,
      segmentLines(store, pipelineKeys.stageOutcomesPrefix(req.run, s.name), beat),
    );
  const counts = { ...req.state.counts, byStatus: { ...req.state.counts.byStatus } };
  if (notSubmitted > 0) counts.byStatus.NOT_SUBMITTED = (counts.byStatus.NOT_SUBMITTED ?? 0) + notSubmitted;
  if (badInput > 0) counts.byStatus.BAD_INPUT = (counts.byStatus.BAD_INPUT ?? 0) + badInput;
  counts.done += notSubmitted + badInput;
  await out.put('summary.json', { ...req.state, counts });
  return { notSubmitted, badInput, results };
}

function isObjectLine(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
