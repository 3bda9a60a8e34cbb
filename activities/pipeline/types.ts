/**
 * What the pipeline workflow and its activities exchange each step: cursors, segment names and
 * counts, never an input or an output (those stay in files and the results store). Also the two
 * records the activities keep per input: its feed row in a stage and its context.
 */
import { type BatchResultLine, type PipelineOutcomeStatus, type RunScope, type StageOutcome } from '../../contracts';
import { type JsonValue } from '../../contracts/pipeline';

/** Where reading a file or writing a feed goes on: the next line's index and byte offset. */
export interface Cursor {
  line: number;
  offset: number;
}

/** One stage as a step sees it: the end of its feed, and the last outcome segment of its batch already read. */
export interface StageCursor {
  /** The run of the stage's batch (its outcome segments are under it). */
  run: RunScope;
  feed: Cursor;
  /** The key of the last outcome segment read (absent: none yet). */
  after?: string;
  /** Inputs at the stage when the step starts (a step of rounds tells a stage with none at once when it feeds it). */
  active?: number;
  /** Feed lines the stage's batch was last told of (the `batchFeed` signal), and rows whose outcomes were taken. */
  told?: number;
  taken?: number;
}

/** The store and output location of one run of a pipeline. */
export interface PipelineRunRef {
  run: RunScope;
  source: string;
  outDir: string;
}

export interface PipelineStepRequest extends PipelineRunRef {
  seq: number;
  stages: StageCursor[];
  /** Read up to `max` new inputs from `from`. */
  read?: { from: Cursor; max: number };
  /** The pipeline stopped submitting (cancelled, deadline, cost cap): inputs that would go on end NOT_SUBMITTED. */
  stopped?: string;
  /** Wait up to this long for a new outcome segment when there is nothing to read. */
  waitMs: number;
  /** Ask the stages' batches their spend (a pipeline with `maxCost`). */
  spend?: boolean;
  /**
   * Run rounds for up to `ms` (each round its own seq, from `seq` on), reading while fewer than
   * `maxInFlight` inputs are in flight (`inFlight` when the step starts; at most `maxRead` a round), and tell the stages' batches
   * how far their feeds go. Absent: one round, and the workflow tells them. `eof`: the input is all
   * read (a stage no input can enter any more then ends the step: the workflow closes its feed).
   */
  rounds?: { inFlight: number; ms: number; maxRead: number; eof?: boolean };
}

/** What a step did to one stage. */
export interface StageStep {
  feed: Cursor;
  after?: string;
  /** Inputs that entered the stage (their rows were fed) and that left it (every outcome in). */
  entered: number;
  left: number;
  /** Rows fed (jobs: one per element of an `each`). */
  fed: number;
  /** Rows whose outcomes the step took. */
  taken?: number;
  /** Feed lines the stage's batch was told of by the end of the step (a step of rounds). */
  told?: number;
}

export interface PipelineStepResult {
  stages: StageStep[];
  read?: { cursor: Cursor; eof: boolean; lines: number };
  /** Inputs that ended in this step, by final status. */
  ended: Partial<Record<PipelineOutcomeStatus, number>>;
  /** The sum of the stages' batches' spend (USD), when asked and every batch answered. */
  spend?: number;
  /** Rounds run, each its own seq: the next step's seq is `seq + seqs` (absent: 1). */
  seqs?: number;
  /** The step told the stages' batches how far their feeds go (the workflow does not). */
  signalled?: boolean;
}

/** A row of a stage's feed: the job's body, and which input (and element of an `each`) it is for. */
export interface FeedRow {
  input: Record<string, JsonValue>;
  policy?: unknown;
  /** pipeline: [input index, element index (-1: no each), elements]. */
  p: [number, number, number];
}

/** One input's context in the results store: its line, where it is, and every stage's outcome so far. */
export interface InputContext {
  index: number;
  line: JsonValue;
  /** The stage it is at (its index). */
  at: number;
  /** Outcomes by stage name (an `each` stage: one slot per element, null until its outcome comes). */
  s: Record<string, StageOutcome | (StageOutcome | null)[]>;
}

/** A stage outcome read from its batch's outcome line. */
export const stageOutcomeOf = (l: BatchResultLine): StageOutcome => {
  const o: StageOutcome = { status: l.status, attempts: l.attempts, jobIds: l.remoteJobIds };
  if (l.output !== undefined) o.output = l.output;
  if (l.error !== undefined) o.error = l.error;
  if (l.errorType !== undefined) o.errorType = l.errorType;
  if (l.submittedAt !== undefined) o.submittedAt = l.submittedAt;
  o.endedAt = l.endedAt;
  if (l.executionTime !== undefined) o.executionTime = l.executionTime;
  return o;
};
