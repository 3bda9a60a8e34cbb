/**
 * The activities of a batch's `--per-job-workflows` mode: read a page of input lines (index, byte
 * offset, length, key; BAD_INPUT reasons) and write the outcomes of finished child job workflows
 * as segments, their outputs read from the results store (never from the batch's history).
 */
import { batchChildId, batchKeys, submitJournalKey } from '../../contracts/names';
import { type InputFormat, type Policy, type RunScope } from '../../contracts';
import { type ObjectStore } from '../../results/store/object-store';
import { keyOf, parseLine } from './input';
import { openedInput } from '../../results/batch/locations';
import { outcomeSegments } from './outcomes';
import { subsetOf } from '../../results/batch/rerun';
import { type Cursor, type Final, type LineRef } from './types';

/** Reads the next lines of the file for child job workflows. */
export interface ChildPageRequest {
  run: RunScope;
  endpointId: string;
  source: string;
  from: Cursor;
  /** Lines to read at most. */
  lines: number;
  inputFormat: InputFormat;
  policy?: Policy;
  keyPath?: string;
  /** A retry-failed run: only the lines of its subset (batchKeys.subset) are read. */
  subset?: boolean;
  /** The batch has no price yet: read the endpoint's worker price. */
  wantPrice?: boolean;
}

export interface ChildPage {
  /** Valid lines, each to run as a child (with its key value when `keyPath` is set). */
  refs: LineRef[];
  bad: { i: number; reason: string }[];
  cursor: Cursor;
  eof: boolean;
  pricePerHour?: number;
}

/** The outcome of one child: a {@link Final}, with where its output is and which child run it was. */
export interface ChildFinal extends Final {
  /** Results-store key of the output (the child stored it: its inline limit is 0). */
  out?: string;
  /** The child's first run id: its submission journals give the remote job ids it did not report (cancelled, expired). */
  cr?: string;
}

export interface ChildOutcomesRequest {
  run: RunScope;
  seq: number;
  endpointId: string;
  source: string;
  write: ChildFinal[];
  wantPrice?: boolean;
}

type Price = (endpointId: string) => Promise<number | undefined>;

const withPrice = async <T extends object>(
  res: T,
  want: boolean | undefined,
  endpointId: string,
  price?: Price,
): Promise<T & { pricePerHour?: number }> => {
  const p = want && price ? await price(endpointId).catch(() => undefined) : undefined;
  return p !== undefined ? { ...res, pricePerHour: p } : res;
};

export function createChildActivities(store: ObjectStore, price?: Price) {
  return {
    /** A page of input lines for child job workflows: positions and keys only, never the inputs. */
    async readChildLines(req: ChildPageRequest): Promise<ChildPage> {
      const page = await openedInput(req.source).readLines(
        req.from,
        req.lines,
        req.subset ? (await subsetOf(store, req.run)).has : undefined,
      );
      const res: ChildPage = { refs: [], bad: [], cursor: page.cursor, eof: page.eof || page.lines.length === 0 };
      for (const line of page.lines) {
        const p = parseLine(line.text, req.inputFormat, req.policy);
        if ('bad' in p) {
          res.bad.push({ i: line.i, reason: `line ${line.i + 1}: ${p.bad}` });
          continue;
        }
        const ref: LineRef = { i: line.i, o: line.o, l: line.l };
        const k = req.keyPath ? keyOf(p.body.input, req.keyPath) : undefined;
        if (k !== undefined) ref.k = k;
        res.refs.push(ref);
      }
      return withPrice(res, req.wantPrice, req.endpointId, price);
    },

    /**
     * Writes the outcomes of finished children as the segment `seq` (rewritten whole on a retry):
     * outputs come from the results store, missing remote ids from the children's journals.
     */
    async writeChildOutcomes(req: ChildOutcomesRequest): Promise<{ pricePerHour?: number }> {
      const outputs: { output?: unknown }[] = [];
      const finals: Final[] = [];
      for (const f of req.write) {
        const { out, cr, ...fin } = f;
        const output = out !== undefined ? await store.find(out) : undefined;
        if (output !== undefined) {
          fin.c = { seq: req.seq, n: outputs.length };
          outputs.push({ output });
        }
        if (cr !== undefined && fin.ids.length === 0) {
          const child = { workflowId: batchChildId(req.run.workflowId, f.i), runId: cr };
          for (let a = 1; ; a++) {
            const journal = (await store.find(submitJournalKey(child, a))) as { remoteJobId: string } | undefined;
            if (!journal) break;
            if (!fin.ids.includes(journal.remoteJobId)) fin.ids.push(journal.remoteJobId);
            fin.a = Math.max(fin.a, a);
          }
        }
        finals.push(fin);
      }
      if (outputs.length > 0) await store.putLines(batchKeys.completions(req.run, req.seq), outputs);
      await outcomeSegments(store, req.run, req.seq, finals, openedInput(req.source));
      return withPrice({}, req.wantPrice, req.endpointId, price);
    },
  };
}
