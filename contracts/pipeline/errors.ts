/** What goes wrong with a pipeline definition (validation issues) and with one input's expressions (failures), by stable code. */

/**
 * Codes of validation issues (a definition that is refused before anything starts):
 * - FILE_SYNTAX: the YAML or JSON text does not parse
 * - SHAPE: a field is missing, unknown, of the wrong type or out of range (zod)
 * - DUPLICATE_STAGE: two stages share a name
 * - RESERVED_NAME: a stage named `input` (the pipeline's input in expressions) or a JSONata literal
 * - EXPRESSION_SYNTAX: an expression does not compile
 * - STAGE_ORDER: an expression reads a stage that does not come earlier
 * - UNKNOWN_NAME: an expression reads a root name that is neither `input` nor a stage
 * - ITEM_OUTSIDE_EACH: `$item` or `$index` outside the `input` of a stage with `each`
 */
export const PIPELINE_ISSUE_CODES = [
  'FILE_SYNTAX',
  'SHAPE',
  'DUPLICATE_STAGE',
  'RESERVED_NAME',
  'EXPRESSION_SYNTAX',
  'STAGE_ORDER',
  'UNKNOWN_NAME',
  'ITEM_OUTSIDE_EACH',
] as const;
export type PipelineIssueCode = (typeof PIPELINE_ISSUE_CODES)[number];

/** One thing wrong with a definition; a file reader adds `line` and `column` from `path`. */
export interface PipelineIssue {
  code: PipelineIssueCode;
  /** The stage's name, or `#n` (1-based) when it has none; absent for pipeline-level fields. */
  stage?: string;
  /** The field inside the stage (or the pipeline): `when`, `retry.maxAttempts`, `output`. */
  field?: string;
  /** 1-based character position in the expression, as JSONata counts it (where the offending token ends). */
  position?: number;
  message: string;
  /** Where in the definition: `['stages', 1, 'when']`. */
  path: (string | number)[];
}

/** One line for an issue: `stage "fields", field "when", position 14: message` (stage and position when known). */
export function describeIssue(i: Omit<PipelineIssue, 'path'>): string {
  const where = [
    i.stage !== undefined && `stage "${i.stage}"`,
    i.field && `field "${i.field}"`,
    i.position && `position ${i.position}`,
  ];
  const at = where.filter(Boolean).join(', ');
  return at ? `${at}: ${i.message}` : i.message;
}

/**
 * Codes of an expression's failure for one input (a value, never a throw: the input ends at that
 * stage with the message):
 * - EVALUATION: JSONata raised an error (a type error, an unknown function, a timeout)
 * - NO_VALUE: nothing came out (a missing field) where a value is required
 * - NOT_OBJECT: a stage's `input` that is not a JSON object
 * - NOT_BOOLEAN: a `when` that is not true or false
 * - NOT_ARRAY: an `each` that is not an array
 * - TOO_MANY_ITEMS: an `each` over the stage's `maxItems`
 * - NOT_JSON: a function, a regex or a number that is not finite
 * - TOO_DEEP: nesting beyond LIMITS.jsonDepth
 * - TOO_LARGE: a job input over LIMITS.runPayloadBytes
 */
export const EXPRESSION_FAILURE_CODES = [
  'EVALUATION',
  'NO_VALUE',
  'NOT_OBJECT',
  'NOT_BOOLEAN',
  'NOT_ARRAY',
  'TOO_MANY_ITEMS',
  'NOT_JSON',
  'TOO_DEEP',
  'TOO_LARGE',
] as const;
export type ExpressionFailureCode = (typeof EXPRESSION_FAILURE_CODES)[number];

/** An expression's failure for one input: which stage and field, JSONata's message and position. */
export interface ExpressionFailure {
  ok: false;
  code: ExpressionFailureCode;
  /** Absent for the pipeline's `output`. */
  stage?: string;
  field: 'input' | 'when' | 'each' | 'output';
  message: string;
  /** 1-based character position in the expression (JSONata's), when JSONata gave one. */
  position?: number;
}

/** One line for a result or a dead letter: `stage "fields", field "input", position 14: The left side ...`. */
export function describeFailure(f: ExpressionFailure): string {
  const where = [f.stage && `stage "${f.stage}"`, `field "${f.field}"`, f.position && `position ${f.position}`];
  return `${where.filter(Boolean).join(', ')}: ${f.message}`;
}

/** A caller's mistake with a valid definition (a stage it does not have, `each` of a stage without one): a bug, thrown. */
export class PipelineUsageError extends Error {
  constructor(
    readonly code: 'UNKNOWN_STAGE' | 'NO_EACH',
    message: string,
  ) {
    super(message);
    this.name = 'PipelineUsageError';
  }
}
