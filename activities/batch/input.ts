/**
 * A batch input line as a job submission: the auto-detection rule, BAD_INPUT reasons, per-key
 * values. Reading the lines is the results layer's (results/batch/input.ts, locations.ts).
 */
import { type InputFormat, type JobSubmission, type Policy } from '../../contracts';

const BODY_KEYS = new Set(['input', 'policy', 's3Config', 'webhook']);

/** An input line as a JSON object, or why it is none (the BAD_INPUT reason; pipelines read lines by it too). */
export function parseObjectLine(text: string): { value: Record<string, unknown> } | { bad: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { bad: `not valid JSON: ${(err as Error).message.slice(0, 200)}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { bad: `not a JSON object (${Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value})` };
  return { value: value as Record<string, unknown> };
}

/**
 * A line as a job submission. `auto`: an object whose `input` is an object and whose other keys
 * are all submission fields (`policy`, `s3Config`, `webhook`) is a body; any other object is the
 * input itself. Anything else is BAD_INPUT (with the reason).
 */
export function parseLine(
  text: string,
  format: InputFormat,
  policy: Policy | undefined,
): { body: JobSubmission } | { bad: string } {
  const parsed = parseObjectLine(text);
  if ('bad' in parsed) return parsed;
  const obj = parsed.value;
  const inputIsObject = typeof obj.input === 'object' && obj.input !== null && !Array.isArray(obj.input);
  const looksLikeBody = inputIsObject && Object.keys(obj).every((k) => BODY_KEYS.has(k));
  if (format === 'body' || (format === 'auto' && looksLikeBody)) {
    if (!inputIsObject) return { bad: 'a body line needs "input" as a JSON object' };
    const body: JobSubmission = { input: obj.input as Record<string, unknown> };
    if (obj.policy !== undefined) body.policy = obj.policy as Policy;
    if (obj.s3Config !== undefined) body.s3Config = obj.s3Config as JobSubmission['s3Config'];
    return { body };
  }
  return { body: policy ? { input: obj, policy } : { input: obj } };
}

/**
 * A body {@link parseLine} made of nothing but a line's input (an object it parsed; no policy or
 * s3Config to check): the queue client need not check it against the contract again (`checked`).
 */
export const inputOnly = (body: JobSubmission): boolean => body.policy === undefined && body.s3Config === undefined;

/** The value at a JSON path (`$.a.b[0]`) of an input, as a string key; undefined when absent. */
export function keyOf(input: Record<string, unknown>, path: string): string | undefined {
  let v: unknown = input;
  for (const m of path.slice(1).matchAll(/\.([A-Za-z_][\w-]*)|\[(\d+)\]/g)) {
    if (v === null || typeof v !== 'object') return undefined;
    v = m[1] !== undefined ? (v as Record<string, unknown>)[m[1]] : (v as unknown[])[Number(m[2])];
  }
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : JSON.stringify(v);
}
