/**
 * The command groups whose definitions load zod (their help shows the schemas' defaults): what
 * `sluice --help` lists of them without loading them. main registers such a group in full only
 * when the command line names it.
 */

/** A lazily registered group: its names (the first shown, the others hidden aliases) and its line in `sluice --help`. */
export interface GroupStub {
  names: readonly string[];
  summary: string;
}

export const BATCH_GROUP: GroupStub = {
  names: ['batch'],
  summary: 'run many jobs from a JSONL file, durably: start, watch, pause, resume, cancel, results',
};

/** `scale` is the former name, kept hidden: scripts written for it go on working. */
export const SCALER_GROUP: GroupStub = {
  names: ['scaler', 'scale'],
  summary: "keep an endpoint's workersMin/workersMax right: a scaler per endpoint, overrides, schedules",
};
