/**
 * Failed inputs grouped by error type (a batch's, or a pipeline's by stage and error type): how many
 * of each, and a few examples with their error, remote job ids and input line. Streams the outcomes
 * once, keeping only the examples.
 */
import { type BatchResultLine } from '../contracts';
import { type BatchInput } from '../results/batch/locations';

/** One example of a failure: the input's index and line, what it failed with. */
export interface FailureExample {
  index: number;
  status: string;
  error?: string;
  remoteJobIds: string[];
  attempts: number;
  /** The input line as the file has it (absent when the input cannot be read). */
  input?: string;
}

/** What grouping reads of one outcome: a batch's result line, or a pipeline's with its stage. */
export type FailureLine = Pick<
  BatchResultLine,
  'index' | 'error' | 'errorType' | 'remoteJobIds' | 'attempts' | 'submittedAt'
> & {
  endedAt?: number;
  status: string;
  stage?: string;
};

/** The failures of one error type (the outcome's errorType, else its status), at one stage of a pipeline. */
export interface FailureGroup {
  /** The pipeline stage where these inputs stopped. */
  stage?: string;
  type: string;
  count: number;
  examples: FailureExample[];
}

/** Options of {@link groupFailures}. */
export interface GroupFailuresOptions {
  /** Examples kept per type. @default 3 */
  examples?: number;
  /** Outcomes that count as failures. @default everything but COMPLETED */
  failed?: (status: string) => boolean;
  /** Sees every line, failed or not, as it streams by (the console's history of a batch: client/outcome-history.ts). */
  seen?: (line: FailureLine) => void;
}

/** Groups `lines` by error type, largest group first, with up to `examples` examples each (input lines read from `input`). */
export async function groupFailures(
  lines: AsyncIterable<FailureLine>,
  input: BatchInput | undefined,
  o: GroupFailuresOptions = {},
): Promise<FailureGroup[]> {
  const keep = o.examples ?? 3;
  const failed = o.failed ?? ((s: string) => s !== 'COMPLETED');
  const groups = new Map<string, FailureGroup>();
  for await (const l of lines) {
    o.seen?.(l);
    if (!failed(l.status)) continue;
    const type = l.errorType ?? l.status;
    const key = `${l.stage ?? ''}\u0000${type}`;
    let g = groups.get(key);
    if (!g)
      groups.set(key, (g = { ...(l.stage !== undefined ? { stage: l.stage } : {}), type, count: 0, examples: [] }));
    g.count++;
    if (g.examples.length < keep)
      g.examples.push({
        index: l.index,
        status: l.status,
        ...(l.error !== undefined ? { error: l.error } : {}),
        remoteJobIds: l.remoteJobIds,
        attempts: l.attempts,
      });
  }
  const out = [...groups.values()].sort((a, b) => b.count - a.count || (a.type < b.type ? -1 : 1));
  if (input) await attachInputs(out, input);
  return out;
}

/** Reads the examples' input lines in one pass over the input (only the lines wanted are kept). */
async function attachInputs(groups: FailureGroup[], input: BatchInput): Promise<void> {
  const byIndex = new Map<number, FailureExample[]>();
  for (const e of groups.flatMap((g) => g.examples)) byIndex.set(e.index, [...(byIndex.get(e.index) ?? []), e]);
  if (byIndex.size === 0 || !(await input.exists().catch(() => false))) return;
  const page = await input.readLines({ line: 0, offset: 0 }, byIndex.size, (i) => byIndex.has(i));
  for (const line of page.lines) for (const e of byIndex.get(line.i) ?? []) e.input = line.text;
}
