import { z } from 'zod';
import { Policy } from './queue';

/**
 * An input read from a line of a JSONL file, by reference: how lines are read (`InputFormat`) and
 * where one line is (`InputLine`), so a job workflow can take its input without holding it.
 */

/** How lines of a batch's input file are read; `auto` is documented in docs/batch.md. */
export const InputFormat = z.enum(['auto', 'body', 'bare']);
export type InputFormat = z.infer<typeof InputFormat>;

/**
 * One line of an input file: the submission activity reads it (by byte offset and length) and
 * turns it into the job's body, so the input itself is never in a workflow's history.
 */
export const InputLine = z.strictObject({
  /** The JSONL file (a path the daemon can read). */
  source: z.string().min(1),
  /** 0-based line number (the batch index). */
  index: z.number().int().min(0),
  offset: z.number().int().min(0),
  length: z.number().int().min(1),
  format: InputFormat,
  /** Policy of a bare input (a body line brings its own). */
  policy: Policy.optional(),
});
export type InputLine = z.infer<typeof InputLine>;
