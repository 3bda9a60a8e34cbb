/** Validation of input with zod: a failure is a 400 naming the offending field. */
import { type z } from 'zod';
import { BadRequestError } from './errors';

/**
 * Validates `value` with a zod schema; a failure is a {@link BadRequestError} naming the first
 * offending field (in the message and in `context.field`). Shared by REST bodies and GraphQL inputs.
 */
export function validate<T extends z.ZodType>(schema: T, value: unknown, what = 'body'): z.infer<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  // An unknown key is reported at the object's path; name the key itself.
  const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
  const at = issue.path.join('.');
  const message = at && !issue.message.startsWith(at) ? `${at}: ${issue.message}` : issue.message;
  throw new BadRequestError(`invalid ${what}: ${message}`, { field: [...issue.path, ...keys.slice(0, 1)].join('.') });
}
