/**
 * Evaluation of a pipeline's JSONata expressions for one input: a stage's job input, its `when`,
 * its `each`, and the pipeline's output. Pure functions over a validated definition and the
 * context `{ input, <earlier stage>: { status, output, error, attempts, ... } }`; a failure is a
 * value (code, stage, field, message, position), never a throw.
 *
 * Home: contracts/, the lowest layer, because the CLI (validate) and the activities (evaluate)
 * both need it and jsonata is pure JavaScript. Workflows must not evaluate expressions (JSONata
 * has `$now()` and `$random()`, and per-item data stays out of history): eslint lets workflows
 * import values only from contracts/names and contracts/limits, so this module only as types.
 */
import jsonata from 'jsonata';
import { LIMITS } from '../limits';
import {
  EACH_MAX_ITEMS_DEFAULT,
  findStage,
  outputExpression,
  type PipelineDefinition,
  type PipelineStage,
} from './definition';
import { type ExpressionFailure, type ExpressionFailureCode, PipelineUsageError } from './errors';
import { bytesOver, type JsonObject, type JsonValue, toPlainJson } from './json-value';

/** What an earlier stage left for the next ones (an `each` stage: one per element, in order). */
export interface StageRecord {
  status: string;
  output?: unknown;
  error?: string;
  attempts?: number;
  [field: string]: unknown;
}

/** What expressions read: the pipeline's input line and the stages that ran before. */
export type PipelineContext = { input: unknown } & { [stage: string]: unknown };

/** One element of an `each` stage: bound as `$item` and `$index` in the stage's `input`. */
export interface EachElement {
  item: JsonValue;
  index: number;
}

export type Evaluated<T> = { ok: true; value: T } | ExpressionFailure;

/** JSONata's guards on one evaluation: run time (ms), evaluation depth, sequence length. */
export const EXPRESSION_GUARDS = { timeout: 5000, stack: 5000, sequence: 1_000_000 } as const;

/** Compiled expressions by text: a pipeline has a few, evaluated for every input. */
const compiled = new Map<string, jsonata.Expression>();
const COMPILED_MAX = 1000;

export type Compiled =
  { ok: true; expression: jsonata.Expression } | { ok: false; message: string; position?: number; token?: string };

/** Compiles `text` (cached); a syntax error comes back with JSONata's message, position and token. */
export function compileExpression(text: string): Compiled {
  const hit = compiled.get(text);
  if (hit) return { ok: true, expression: hit };
  try {
    const expression = jsonata(text, EXPRESSION_GUARDS);
    if (compiled.size >= COMPILED_MAX) compiled.clear();
    compiled.set(text, expression);
    return { ok: true, expression };
  } catch (err) {
    const e = err as Partial<jsonata.JsonataError>;
    return { ok: false, message: e.message ?? String(err), position: e.position, token: e.token };
  }
}

type Where = Pick<ExpressionFailure, 'stage' | 'field'>;
const fail = (where: Where, code: ExpressionFailureCode, message: string, position?: number): ExpressionFailure => ({
  ok: false,
  code,
  ...where,
  message,
  ...(position !== undefined ? { position } : {}),
});

/** Evaluates `text` over `context`; JSONata's errors (a bad definition's included) become failures. */
async function evaluate(
  text: string,
  where: Where,
  context: PipelineContext,
  bindings?: Record<string, unknown>,
): Promise<{ ok: true; value: unknown } | ExpressionFailure> {
  const c = compileExpression(text);
  if (!c.ok) return fail(where, 'EVALUATION', c.message, c.position);
  try {
    return { ok: true, value: await c.expression.evaluate(context, bindings) };
  } catch (err) {
    const e = err as Partial<jsonata.JsonataError>;
    return fail(where, 'EVALUATION', e.message ?? String(err), e.position);
  }
}

function stageOf(def: PipelineDefinition, name: string): PipelineStage {
  const stage = findStage(def, name);
  if (!stage) throw new PipelineUsageError('UNKNOWN_STAGE', `pipeline "${def.name}" has no stage "${name}"`);
  return stage;
}

const kindOf = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`);
const MISSING = '(a missing field gives nothing: JSONata returns no value for a path that does not exist)';

/**
 * The job input of `stage` for this input (and `element` of an `each` stage): a JSON object within
 * LIMITS.runPayloadBytes. Nothing at all is NO_VALUE; a missing field inside an object constructor
 * drops that key, as JSONata does.
 */
export async function stageInput(
  def: PipelineDefinition,
  stageName: string,
  context: PipelineContext,
  element?: EachElement,
): Promise<Evaluated<JsonObject>> {
  const stage = stageOf(def, stageName);
  if ((stage.each === undefined) !== (element === undefined))
    throw new PipelineUsageError('NO_EACH', `stage "${stage.name}": an element is given exactly when it has each`);
  const where: Where = { stage: stage.name, field: 'input' };
  const r = await evaluate(stage.input, where, context, element && { item: element.item, index: element.index });
  if (!r.ok) return r;
  if (r.value === undefined) return fail(where, 'NO_VALUE', `the job input expression produced nothing ${MISSING}`);
  const plain = toPlainJson(r.value, 'the job input');
  if (!plain.ok) return fail(where, plain.code, plain.message);
  const v = plain.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    return fail(where, 'NOT_OBJECT', `a job input is a JSON object; the expression produced ${kindOf(v)}`);
  const over = bytesOver({ input: v }, LIMITS.runPayloadBytes);
  if (over !== undefined)
    return fail(where, 'TOO_LARGE', `the job input is ${over} bytes, over the ${LIMITS.runPayloadBytes} of /run`);
  return { ok: true, value: v };
}

/** Whether `stage` runs for this input: true without `when`; otherwise exactly true or false. */
export async function stageWhen(
  def: PipelineDefinition,
  stageName: string,
  context: PipelineContext,
): Promise<Evaluated<boolean>> {
  const stage = stageOf(def, stageName);
  if (stage.when === undefined) return { ok: true, value: true };
  const where: Where = { stage: stage.name, field: 'when' };
  const r = await evaluate(stage.when, where, context);
  if (!r.ok) return r;
  if (r.value === undefined)
    return fail(where, 'NO_VALUE', `when produced nothing ${MISSING}; $exists() or $boolean() make it true or false`);
  if (typeof r.value !== 'boolean')
    return fail(
      where,
      'NOT_BOOLEAN',
      `when must be true or false; it produced ${kindOf(r.value)} ($boolean() converts)`,
    );
  return { ok: true, value: r.value };
}

/** The elements an `each` stage fans out over for this input: an array of at most its `maxItems`. */
export async function stageEach(
  def: PipelineDefinition,
  stageName: string,
  context: PipelineContext,
): Promise<Evaluated<JsonValue[]>> {
  const stage = stageOf(def, stageName);
  if (stage.each === undefined) throw new PipelineUsageError('NO_EACH', `stage "${stage.name}" has no each`);
  const where: Where = { stage: stage.name, field: 'each' };
  const r = await evaluate(stage.each, where, context);
  if (!r.ok) return r;
  if (r.value === undefined) return fail(where, 'NO_VALUE', `each produced nothing ${MISSING}`);
  if (!Array.isArray(r.value))
    return fail(
      where,
      'NOT_ARRAY',
      `each must produce an array; it produced ${kindOf(r.value)} (a path matching one value gives that value: end it with [] to keep an array)`,
    );
  const max = stage.maxItems ?? EACH_MAX_ITEMS_DEFAULT;
  if (r.value.length > max)
    return fail(where, 'TOO_MANY_ITEMS', `each produced ${r.value.length} elements, over maxItems ${max}`);
  const plain = toPlainJson(r.value, 'each');
  if (!plain.ok) return fail(where, plain.code, plain.message);
  return { ok: true, value: plain.value as JsonValue[] };
}

/** The value of this input's result line: `output` (default: the last stage's output); nothing is allowed (no `output` in the line). */
export async function pipelineOutput(
  def: PipelineDefinition,
  context: PipelineContext,
): Promise<Evaluated<JsonValue | undefined>> {
  const where: Where = { field: 'output' };
  const r = await evaluate(outputExpression(def), where, context);
  if (!r.ok || r.value === undefined) return r as Evaluated<undefined>;
  const plain = toPlainJson(r.value, 'the output');
  return plain.ok ? plain : fail(where, plain.code, plain.message);
}
