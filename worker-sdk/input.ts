import { type z } from 'zod';
import { InputError, formatIssues } from './errors';

/**
 * Validates a job's input with a zod schema, applying its defaults. Throws {@link InputError} with
 * a one-line message (`path: problem; ...`), which fails the job with that message.
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new InputError(`invalid input: ${formatIssues(result.error.issues)}`);
}
