/**
 * The shape of a pipeline definition (a YAML or JSON file, or the same object in the library):
 * stages on endpoints, their JSONata expressions and the per-stage options taken from the batch's
 * own schemas. Expressions are checked as strings here; validate.ts compiles them.
 */
import { z } from 'zod';
import { BatchOptions } from '../batch';

/** The evaluation context's own key beside the stages: the pipeline's input line. */
export const PIPELINE_INPUT_KEY = 'input';

/**
 * Stage names an expression could not read as `$.name`: the context's own key, and JSONata's
 * literals (`$.true` does not parse).
 */
export const RESERVED_STAGE_NAMES: readonly string[] = [PIPELINE_INPUT_KEY, 'true', 'false', 'null'];

/** `maxItems` of an `each` stage that sets none. */
export const EACH_MAX_ITEMS_DEFAULT = 1000;

/** Longest expression, in characters. */
export const EXPRESSION_MAX_LENGTH = 10_000;

/** A JSONata expression over the context `{ input, <earlier stages> }`. */
export const Expression = z
  .string()
  .max(EXPRESSION_MAX_LENGTH)
  .refine((s) => s.trim() !== '', { error: 'an empty expression' });

/** A stage name: an identifier, so an expression reads the stage as `$.name`. */
export const StageName = z
  .string()
  .max(64)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
    error: 'a stage name is an identifier (letters, digits and _, not starting with a digit)',
  });

/**
 * The batch's options that make sense per stage, with the batch's schemas and defaults:
 * `concurrency` (jobs of this stage in flight, default 50), `keyPath` + `keyLimit` (here a path
 * into the stage's job input), `priority` (default 5), `retry` (the job retry options), `policy`
 * (the jobs' execution policy), `completion` (`webhook` or `poll`, default webhook) and
 * `pricePerHour` (the spend estimate's price; default the endpoint's worker `costPerHr`).
 */
const STAGE_OPTIONS_FROM_BATCH = {
  concurrency: true,
  keyPath: true,
  keyLimit: true,
  priority: true,
  retry: true,
  policy: true,
  completion: true,
  pricePerHour: true,
} as const;

/** One stage: every input (or every element of its `each`) becomes one job on `endpoint`. */
export const PipelineStage = BatchOptions.pick(STAGE_OPTIONS_FROM_BATCH)
  .extend({
    /** Unique in the pipeline; later expressions read this stage's outcome as `$.<name>`. */
    name: StageName,
    /** The endpoint's name or id (resolved when the pipeline starts, not by `validate`). */
    endpoint: z.string().min(1).max(200),
    /** The job's input: must evaluate to a JSON object. Inside `each`, `$item` and `$index` are bound. */
    input: Expression,
    /** The stage runs for an input only when this is `true` (otherwise the input ends SKIPPED here); it must be a boolean. */
    when: Expression.optional(),
    /** Fan-out: one job per element of this array, gathered back in order as the stage's outcome. */
    each: Expression.optional(),
    /**
     * `each` only: more elements than this end the input at this stage (TOO_MANY_ITEMS).
     * @default 1000 (EACH_MAX_ITEMS_DEFAULT)
     */
    maxItems: z.number().int().min(1).max(100_000).optional(),
  })
  .superRefine((stage, ctx) => {
    if (stage.maxItems !== undefined && stage.each === undefined)
      ctx.addIssue({ code: 'custom', path: ['maxItems'], message: 'maxItems needs each (it bounds the fan-out)' });
    if (stage.keyLimit !== undefined && stage.keyPath === undefined)
      ctx.addIssue({ code: 'custom', path: ['keyLimit'], message: 'keyLimit needs keyPath (the value it caps)' });
  });
export type PipelineStage = z.infer<typeof PipelineStage>;
export type PipelineStageInput = z.input<typeof PipelineStage>;

/** An absolute time: epoch ms (the batch's `deadline`) or an ISO 8601 time with its offset. */
const Deadline = z.union([
  BatchOptions.shape.deadline.unwrap(),
  z.iso
    .datetime({ offset: true, error: 'deadline is epoch ms or an ISO 8601 time (2025-06-01T18:00:00Z)' })
    .transform((s) => Date.parse(s)),
]);

/**
 * A whole pipeline: its stages in order and what each input's result line holds. The shape only:
 * `validatePipeline` (validate.ts) also checks stage names and compiles every expression.
 */
export const PipelineDefinition = z.strictObject({
  /** Shown in status and results: letters, digits, `.`, `_`, `-`. */
  name: z
    .string()
    .max(100)
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, { error: 'a pipeline name is letters, digits, ., _ and -' }),
  description: z.string().max(2000).optional(),
  /** In order: a stage reads only the ones before it. */
  stages: z.array(PipelineStage).min(1, { error: 'a pipeline has at least one stage' }).max(32),
  /**
   * The value written for each input in results.jsonl; it reads every stage.
   * @default `$.<last stage>.output`
   */
  output: Expression.optional(),
  /** Stop submitting (in every stage) once the estimated spend (USD) reaches this. */
  maxCost: BatchOptions.shape.maxCost,
  /** Stop submitting at this time. */
  deadline: Deadline.optional(),
  /**
   * Inputs in flight at most across all stages (read, not yet ended): bounds memory and the
   * results store however large the input file.
   * @default 1000
   */
  maxInFlight: z.number().int().min(1).max(100_000).default(1000),
});
export type PipelineDefinition = z.infer<typeof PipelineDefinition>;
/** The definition as written (defaults optional), for the library's typed objects. */
export type PipelineDefinitionInput = z.input<typeof PipelineDefinition>;

/** The stage named `name`, if the pipeline has one. */
export const findStage = (def: PipelineDefinition, name: string): PipelineStage | undefined =>
  def.stages.find((s) => s.name === name);

/** The `output` expression, or its default: the last stage's output. */
export const outputExpression = (def: PipelineDefinition): string =>
  def.output ?? `$.${def.stages[def.stages.length - 1]!.name}.output`;
