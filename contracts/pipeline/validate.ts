/**
 * Validation of a pipeline definition before anything starts: the shape (zod), the stage names,
 * and every expression compiled and checked for what it reads. All issues are found at once, each
 * naming the stage, the field and the position in the expression; endpoints are not resolved here.
 */
import { type z } from 'zod';
import { PIPELINE_INPUT_KEY, PipelineDefinition, RESERVED_STAGE_NAMES } from './definition';
import { type PipelineIssue, type PipelineIssueCode } from './errors';
import { compileExpression } from './expressions';
import { freeVariables, rootNames } from './references';

export type PipelineValidation =
  { ok: true; definition: PipelineDefinition; issues: [] } | { ok: false; issues: PipelineIssue[] };

/** The expression fields of a stage, in the order they are evaluated. */
const STAGE_EXPRESSIONS = ['when', 'each', 'input'] as const;
/** Variables an `each` stage binds in its `input`. */
const ELEMENT_VARIABLES = ['item', 'index'] as const;

type Raw = Record<string, unknown>;
const asRecord = (v: unknown): Raw | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Raw) : undefined;
const rawStages = (value: unknown): (Raw | undefined)[] => {
  const stages = asRecord(value)?.stages;
  return Array.isArray(stages) ? stages.map(asRecord) : [];
};
const nameOf = (stage: Raw | undefined): string | undefined =>
  typeof stage?.name === 'string' && stage.name !== '' ? stage.name : undefined;

/** Builds an issue at `path`, naming the stage (by its name, or `#n`) and the field inside it. */
function issueAt(
  value: unknown,
  path: (string | number)[],
  code: PipelineIssueCode,
  message: string,
  position?: number,
): PipelineIssue {
  const dotted = (p: (string | number)[]) =>
    p.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
  const inStage = path[0] === 'stages' && typeof path[1] === 'number';
  const stage = inStage ? (nameOf(rawStages(value)[path[1] as number]) ?? `#${(path[1] as number) + 1}`) : undefined;
  const field = inStage ? dotted(path.slice(2)) : dotted(path);
  return {
    code,
    ...(stage !== undefined ? { stage } : {}),
    ...(field !== '' ? { field } : {}),
    ...(position !== undefined ? { position } : {}),
    message,
    path,
  };
}

/** Zod's issues, one per unknown key, with "required" for a missing field. */
function shapeIssues(value: unknown, error: z.ZodError): PipelineIssue[] {
  return error.issues.flatMap((i) => {
    const path = i.path.filter((k): k is string | number => typeof k !== 'symbol');
    if (i.code === 'unrecognized_keys')
      return i.keys.map((k) => issueAt(value, [...path, k], 'SHAPE', `unknown field "${k}"`));
    const missing = /^Invalid input: expected (\w+), received undefined$/.exec(i.message);
    return [issueAt(value, path, 'SHAPE', missing ? `required (${missing[1]})` : i.message)];
  });
}

/** Stage names that expressions could not tell apart or read. */
function nameIssues(value: unknown): PipelineIssue[] {
  const issues: PipelineIssue[] = [];
  const seen = new Set<string>();
  rawStages(value).forEach((stage, i) => {
    const name = nameOf(stage);
    if (name === undefined) return;
    const path = ['stages', i, 'name'];
    if (RESERVED_STAGE_NAMES.includes(name)) {
      const why = name === PIPELINE_INPUT_KEY ? "the pipeline's input in expressions" : 'a JSONata literal';
      issues.push(issueAt(value, path, 'RESERVED_NAME', `"${name}" is reserved (${why}): name the stage otherwise`));
    }
    if (seen.has(name)) issues.push(issueAt(value, path, 'DUPLICATE_STAGE', `two stages are named "${name}"`));
    seen.add(name);
  });
  return issues;
}

/** One expression: it compiles, reads only `input` and the stages in `before`, and `$item` only where bound. */
function expressionIssues(
  value: unknown,
  path: (string | number)[],
  text: string,
  scope: { before: string[]; all: string[]; self?: string; element: boolean },
): PipelineIssue[] {
  const c = compileExpression(text);
  if (!c.ok) return [issueAt(value, path, 'EXPRESSION_SYNTAX', c.message, c.position)];
  const issues: PipelineIssue[] = [];
  for (const use of rootNames(c.expression.ast())) {
    if (use.name === PIPELINE_INPUT_KEY || scope.before.includes(use.name)) continue;
    const known = [...new Set(scope.before)].join(', ') || 'none';
    const message =
      use.name === scope.self
        ? `reads stage "${use.name}" itself: a stage reads only the input and the stages before it`
        : scope.all.includes(use.name)
          ? `reads stage "${use.name}", which comes after stage "${scope.self}": a stage reads only the input and the stages before it`
          : `reads "${use.name}", which is neither input nor a stage (${scope.self === undefined ? 'stages' : 'stages before this one'}: ${known})`;
    const code = scope.all.includes(use.name) ? 'STAGE_ORDER' : 'UNKNOWN_NAME';
    issues.push(issueAt(value, path, code, message, use.position));
  }
  if (!scope.element)
    for (const use of freeVariables(c.expression.ast(), ELEMENT_VARIABLES))
      issues.push(
        issueAt(
          value,
          path,
          'ITEM_OUTSIDE_EACH',
          `$${use.name} is bound only in the input of a stage with each`,
          use.position,
        ),
      );
  return issues;
}

/** Every expression of the definition, checked even when the shape has issues elsewhere. */
function allExpressionIssues(value: unknown): PipelineIssue[] {
  const stages = rawStages(value);
  const all = stages.map(nameOf).filter((n): n is string => n !== undefined);
  const issues: PipelineIssue[] = [];
  stages.forEach((stage, i) => {
    const before = stages
      .slice(0, i)
      .map(nameOf)
      .filter((n): n is string => n !== undefined);
    for (const field of STAGE_EXPRESSIONS) {
      const text = stage?.[field];
      if (typeof text !== 'string' || text.trim() === '') continue;
      const element = field === 'input' && stage?.each !== undefined;
      issues.push(
        ...expressionIssues(value, ['stages', i, field], text, { before, all, self: nameOf(stage), element }),
      );
    }
  });
  const output = asRecord(value)?.output;
  if (typeof output === 'string' && output.trim() !== '')
    issues.push(...expressionIssues(value, ['output'], output, { before: all, all, element: false }));
  return issues;
}

/** Validates a definition (parsed YAML or JSON, or a library object); the definition comes back with its defaults. */
export function validatePipeline(value: unknown): PipelineValidation {
  const parsed = PipelineDefinition.safeParse(value);
  const issues = [
    ...(parsed.success ? [] : shapeIssues(value, parsed.error)),
    ...nameIssues(value),
    ...allExpressionIssues(value),
  ];
  if (parsed.success && issues.length === 0) return { ok: true, definition: parsed.data, issues: [] };
  return { ok: false, issues };
}
