/** Pipeline definitions: bad ones refused with every issue (code, stage, field, position), good ones parsed with their defaults. */
import { describe, expect, it } from 'vitest';
import { type PipelineDefinitionInput, validatePipeline } from '../../contracts';

/** The issue's example: OCR every page, then extract fields from the pages together. */
const docs = (): PipelineDefinitionInput => ({
  name: 'docs',
  stages: [
    {
      name: 'pages',
      endpoint: 'ocr',
      each: '$.input.pages',
      input: "{ 'url': $item, 'lang': $.input.lang }",
      concurrency: 64,
    },
    {
      name: 'fields',
      endpoint: 'extract',
      when: "$count($.pages[status = 'COMPLETED']) > 0",
      input: "{ 'text': $join($.pages.output.text, '\\n') }",
      retry: { maxAttempts: 5 },
      policy: { executionTimeout: 120_000 },
    },
  ],
  output: "{ 'id': $.input.id, 'fields': $.fields.output }",
});

/** `docs()` with stage `i` changed. */
const withStage = (i: number, change: Record<string, unknown>): unknown => {
  const d = docs() as { stages: Record<string, unknown>[] };
  d.stages[i] = { ...d.stages[i], ...change };
  return d;
};

type Expected = { code: string; stage?: string; field?: string; position?: number; message?: RegExp };
const BAD: [string, unknown, Expected[]][] = [
  ['not an object', 'docs', [{ code: 'SHAPE', message: /expected object/ }]],
  ['no stages', { name: 'x', stages: [] }, [{ code: 'SHAPE', field: 'stages', message: /at least one stage/ }]],
  [
    'a missing endpoint and an unknown field',
    withStage(1, { endpoint: undefined, concurency: 3 }),
    [
      { code: 'SHAPE', stage: 'fields', field: 'endpoint', message: /^required \(string\)$/ },
      { code: 'SHAPE', stage: 'fields', field: 'concurency', message: /unknown field "concurency"/ },
    ],
  ],
  [
    'options out of the batch ranges',
    withStage(0, { concurrency: 0, priority: 12, retry: { maxAttempts: 0 }, completion: 'sms' }),
    [
      { code: 'SHAPE', stage: 'pages', field: 'concurrency' },
      { code: 'SHAPE', stage: 'pages', field: 'priority' },
      { code: 'SHAPE', stage: 'pages', field: 'retry.maxAttempts' },
      { code: 'SHAPE', stage: 'pages', field: 'completion' },
    ],
  ],
  [
    'a policy outside the service limits',
    withStage(1, { policy: { executionTimeout: 1 } }),
    [{ code: 'SHAPE', stage: 'fields', field: 'policy.executionTimeout' }],
  ],
  [
    'maxItems without each, keyLimit without keyPath',
    withStage(1, { maxItems: 10, keyLimit: 2 }),
    [
      { code: 'SHAPE', stage: 'fields', field: 'maxItems', message: /needs each/ },
      { code: 'SHAPE', stage: 'fields', field: 'keyLimit', message: /needs keyPath/ },
    ],
  ],
  [
    'a stage name that is no identifier, another unnamed',
    {
      name: 'x',
      stages: [
        { name: 'my-stage', endpoint: 'e', input: '$.input' },
        { endpoint: 'e', input: '{}' },
      ],
    },
    [
      { code: 'SHAPE', stage: 'my-stage', field: 'name', message: /identifier/ },
      { code: 'SHAPE', stage: '#2', field: 'name', message: /required/ },
    ],
  ],
  [
    'duplicate and reserved stage names',
    { name: 'x', stages: ['a', 'a', 'input', 'null'].map((name) => ({ name, endpoint: 'e', input: '$.input' })) },
    [
      { code: 'DUPLICATE_STAGE', stage: 'a', field: 'name' },
      { code: 'RESERVED_NAME', stage: 'input', field: 'name', message: /the pipeline's input/ },
      { code: 'RESERVED_NAME', stage: 'null', field: 'name', message: /JSONata literal/ },
    ],
  ],
  [
    'a syntax error, with its position',
    withStage(1, { when: '$count($.pages) >' }),
    [{ code: 'EXPRESSION_SYNTAX', stage: 'fields', field: 'when', position: 17, message: /end of expression/ }],
  ],
  [
    'a stage reading a later stage, and itself',
    withStage(0, { input: '{ "text": $.fields.output, "again": pages }' }),
    [
      {
        code: 'STAGE_ORDER',
        stage: 'pages',
        field: 'input',
        position: 18,
        message: /stage "fields", which comes after/,
      },
      { code: 'STAGE_ORDER', stage: 'pages', field: 'input', position: 41, message: /stage "pages" itself/ },
    ],
  ],
  [
    'a later stage through $$ inside a predicate, and in each',
    withStage(0, { each: '$.input.pages[$ != $$.fields.x]' }),
    [{ code: 'STAGE_ORDER', stage: 'pages', field: 'each', position: 28 }],
  ],
  [
    'a root name that is neither input nor a stage, in output',
    { ...docs(), output: '$.feilds.output' },
    [{ code: 'UNKNOWN_NAME', field: 'output', position: 8, message: /"feilds".*stages: pages, fields/ }],
  ],
  [
    '$item outside the input of an each stage',
    withStage(1, { input: '{ "n": $index }', when: '$exists($item)' }),
    [
      { code: 'ITEM_OUTSIDE_EACH', stage: 'fields', field: 'when', message: /\$item is bound only/ },
      { code: 'ITEM_OUTSIDE_EACH', stage: 'fields', field: 'input', message: /\$index is bound only/ },
    ],
  ],
  [
    'shape and expression issues of different stages, all at once',
    withStage(1, { concurrency: -1, input: '$.pages.output[' }),
    [
      { code: 'SHAPE', stage: 'fields', field: 'concurrency' },
      { code: 'EXPRESSION_SYNTAX', stage: 'fields', field: 'input' },
    ],
  ],
];

/** In stage `fields`, expressions that name the later stage `summary` where it is not the context's root: no issue. */
const NOT_ROOT_READS = [
  '$.pages.summary', // a field of the pages' records
  '$.pages[summary = 1].output', // inside a predicate: the context is an element of pages
  '$map($.pages, function($p) { $p.summary })', // inside a lambda
  '$.pages.(summary)', // a later path step
  "$lookup($, 'summary')", // dynamic: not known statically
  '$.input ~> $map(function($v) { summary })', // the right side of ~>
  '($summary := 1; { "n": $summary })', // a variable, not a name
];

/** `docs()` with a third stage `summary` and the `input` of `fields` replaced. */
const fieldsInput = (input: string): unknown => {
  const d = withStage(1, { input }) as { stages: unknown[] };
  d.stages.push({ name: 'summary', endpoint: 'llm', input: '$.fields.output' });
  return d;
};

describe('pipeline definitions', () => {
  it.each(BAD)('refuses %s, naming every issue', (_, value, expected) => {
    const v = validatePipeline(value);
    expect(v.ok).toBe(false);
    expect(v.issues).toHaveLength(expected.length);
    expected.forEach((e, i) => {
      const { message, ...rest } = e;
      expect(v.issues[i]).toMatchObject(rest);
      if (message) expect(v.issues[i]!.message).toMatch(message);
    });
  });

  it('parses the issue example with the batch defaults per stage', () => {
    const v = validatePipeline(docs());
    expect(v.issues).toEqual([]);
    if (!v.ok) return;
    const [pages, fields] = v.definition.stages;
    expect(pages).toMatchObject({ concurrency: 64, priority: 5, completion: 'webhook', retry: { maxAttempts: 3 } });
    expect(fields).toMatchObject({ concurrency: 50, retry: { maxAttempts: 5, initialBackoffMs: 1000 } });
    expect(fields!.policy).toEqual({ executionTimeout: 120_000 });
    expect(v.definition.maxInFlight).toBe(1000);
  });

  it('takes a deadline as epoch ms or ISO 8601, and key options per stage', () => {
    const iso = validatePipeline({ ...docs(), deadline: '2030-01-02T03:04:05Z', maxCost: 25 });
    expect(iso.ok && iso.definition.deadline).toBe(Date.UTC(2030, 0, 2, 3, 4, 5));
    const ms = validatePipeline({ ...docs(), deadline: 1_900_000_000_000 });
    expect(ms.ok && ms.definition.deadline).toBe(1_900_000_000_000);
    expect(validatePipeline({ ...docs(), deadline: 'tomorrow' }).issues).toMatchObject([{ field: 'deadline' }]);
    const keyed = validatePipeline(withStage(0, { keyPath: '$.lang', keyLimit: 4, maxItems: 50 }));
    expect(keyed.ok && keyed.definition.stages[0]).toMatchObject({ keyPath: '$.lang', keyLimit: 4, maxItems: 50 });
  });

  it('accepts $item where the expression binds it itself', () => {
    for (const input of ['$.input.docs@$item.{ "u": $item.url }', '$map($.input.docs, function($item) { $item })'])
      expect(validatePipeline(withStage(1, { input })).issues).toEqual([]);
  });

  it.each(NOT_ROOT_READS)('does not report %s (no false errors)', (input) => {
    expect(validatePipeline(fieldsInput(input)).issues).toEqual([]);
    expect(validatePipeline(fieldsInput(`{ "s": summary, "t": ${input} }`)).issues).toMatchObject([
      { code: 'STAGE_ORDER', stage: 'fields', position: 14 },
    ]);
  });
});
