/** Evaluation of a pipeline's expressions for one input: stage input, when, each and output; failures are values. */
import { describe, expect, it } from 'vitest';
import {
  LIMITS,
  type PipelineContext,
  type PipelineDefinition,
  type PipelineStageInput,
  pipelineOutput,
  stageEach,
  stageInput,
  stageWhen,
  validatePipeline,
} from '../../contracts';

/** A valid definition of one stage `s` (plus `a` before it when `withEarlier`), from the stage's fields. */
function pipeline(stage: Partial<PipelineStageInput>, output?: string): PipelineDefinition {
  const v = validatePipeline({
    name: 'p',
    stages: [
      { name: 'a', endpoint: 'e', input: '$.input' },
      { name: 's', endpoint: 'e', input: '$.input', ...stage },
    ],
    ...(output ? { output } : {}),
  });
  if (!v.ok) throw new Error(JSON.stringify(v.issues));
  return v.definition;
}

const context: PipelineContext = {
  input: { id: 'd1', lang: 'en', pages: ['u1', 'u2', 'u3'], one: ['x'], docs: [{ url: 'only' }], empty: [] },
  a: { status: 'COMPLETED', output: { text: 'hello', score: 0.9 }, attempts: 1 },
};

describe('stageInput', () => {
  it.each([
    [
      'maps fields of the input and earlier stages',
      "{ 'q': $.a.output.text, 'lang': input.lang }",
      { q: 'hello', lang: 'en' },
    ],
    ['drops a key whose path is missing (JSONata)', "{ 'id': $.input.id, 'x': $.input.missing }", { id: 'd1' }],
    ['passes a whole object through', '$.a.output', { text: 'hello', score: 0.9 }],
    ['strips sequence wrappers', "{ 'up': $.input.pages.$uppercase($) }", { up: ['U1', 'U2', 'U3'] }],
  ])('%s', async (_, input, expected) => {
    const r = await stageInput(pipeline({ input }), 's', context);
    expect(r).toEqual({ ok: true, value: expected });
    if (r.ok) expect(Object.keys(r.value.up ?? {})).not.toContain('sequence');
  });

  it.each([
    ['nothing (a missing path)', '$.input.missing', 'NO_VALUE', undefined, /produced nothing/],
    ['a string', '$.a.output.text', 'NOT_OBJECT', undefined, /JSON object; the expression produced a string/],
    ['an array', '$.input.pages', 'NOT_OBJECT', undefined, /produced an array/],
    ['null', 'null', 'NOT_OBJECT', undefined, /produced null/],
    ['a type error', "{ 'n': $.input.lang + 1 }", 'EVALUATION', 21, /left side of the "\+" operator/],
    ['a non-finite number', "{ 'x': 1 / 0 }", 'NOT_JSON', undefined, /Infinity, not a JSON number/],
    ['a function', "{ 'f': function($x) { $x } }", 'NOT_JSON', undefined, /is a function, not JSON/],
    [
      'a runaway recursion',
      '($f := function($n) { 1 + $f($n + 1) }; { "x": $f(0) })',
      'EVALUATION',
      undefined,
      /Stack/,
    ],
  ])('fails, as a value, on %s', async (_, input, code, position, message) => {
    const r = await stageInput(pipeline({ input }), 's', context);
    expect(r).toMatchObject({ ok: false, code, stage: 's', field: 'input', ...(position ? { position } : {}) });
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it('refuses a job input over the /run size limit and nesting beyond the JSON depth limit', async () => {
    const big = { input: { s: 'x'.repeat(LIMITS.runPayloadBytes) } };
    expect(await stageInput(pipeline({ input: "{ 's': $.input.s }" }), 's', big)).toMatchObject({
      ok: false,
      code: 'TOO_LARGE',
    });
    let deep: unknown = 1;
    for (let i = 0; i < LIMITS.jsonDepth + 5; i++) deep = [deep];
    expect(await stageInput(pipeline({ input: "{ 'd': $.input }" }), 's', { input: deep })).toMatchObject({
      ok: false,
      code: 'TOO_DEEP',
    });
  });

  it('binds $item and $index in an each stage, and insists on an element exactly there', async () => {
    const def = pipeline({
      each: '$.input.pages',
      input: "{ 'url': $item, 'page': $index + 1, 'lang': $.input.lang }",
    });
    expect(await stageInput(def, 's', context, { item: 'u2', index: 1 })).toEqual({
      ok: true,
      value: { url: 'u2', page: 2, lang: 'en' },
    });
    await expect(stageInput(def, 's', context)).rejects.toMatchObject({ code: 'NO_EACH' });
    await expect(stageInput(def, 'nope', context)).rejects.toMatchObject({ code: 'UNKNOWN_STAGE' });
  });
});

describe('stageWhen', () => {
  it.each([
    ['true', "$.a.status = 'COMPLETED'", { ok: true, value: true }],
    ['false', '$.a.output.score < 0.5', { ok: true, value: false }],
    ['no when: true', undefined, { ok: true, value: true }],
    ['a missing field', '$.a.output.flag', { ok: false, code: 'NO_VALUE', field: 'when' }],
    ['not a boolean', '$.a.output.score', { ok: false, code: 'NOT_BOOLEAN', field: 'when' }],
    ['an error', '$.a.output.text > 1', { ok: false, code: 'EVALUATION', field: 'when', position: 17 }],
  ])('%s', async (_, when, expected) => {
    expect(await stageWhen(pipeline(when ? { when } : {}), 's', context)).toMatchObject(expected);
  });
});

describe('stageEach', () => {
  it.each([
    ['an array of the input', '$.input.pages', { maxItems: 3 }, { ok: true, value: ['u1', 'u2', 'u3'] }],
    ['a one-element array stays an array', '$.input.one', {}, { ok: true, value: ['x'] }],
    ['an empty array', '$.input.empty', {}, { ok: true, value: [] }],
    ['one match kept as an array with []', '$.input.docs.url[]', {}, { ok: true, value: ['only'] }],
    ['one match without [] is no array', '$.input.docs.url', {}, { ok: false, code: 'NOT_ARRAY' }],
    ['a missing field', '$.input.missing', {}, { ok: false, code: 'NO_VALUE', field: 'each' }],
    ['over maxItems', '$.input.pages', { maxItems: 2 }, { ok: false, code: 'TOO_MANY_ITEMS' }],
    ['over the default maxItems', '[1..1001]', {}, { ok: false, code: 'TOO_MANY_ITEMS' }],
  ])('%s', async (_, each, more, expected) => {
    const r = await stageEach(pipeline({ each, input: '{ "x": $item }', ...more }), 's', context);
    expect(r).toMatchObject(expected);
    if (!r.ok && r.code === 'TOO_MANY_ITEMS') expect(r.message).toMatch(/over maxItems (2|1000)$/);
  });

  it('is a caller error on a stage without each', async () => {
    await expect(stageEach(pipeline({}), 's', context)).rejects.toMatchObject({ code: 'NO_EACH' });
  });
});

describe('pipelineOutput', () => {
  it('evaluates output over every stage, defaults to the last stage output, and allows nothing', async () => {
    const full = { ...context, s: { status: 'COMPLETED', output: { fields: [1, 2] } } };
    expect(await pipelineOutput(pipeline({}, "{ 'id': $.input.id, 'f': $.s.output.fields }"), full)).toEqual({
      ok: true,
      value: { id: 'd1', f: [1, 2] },
    });
    expect(await pipelineOutput(pipeline({}), full)).toEqual({ ok: true, value: { fields: [1, 2] } });
    expect(await pipelineOutput(pipeline({}), context)).toEqual({ ok: true, value: undefined });
    expect(await pipelineOutput(pipeline({}, '$.input.lang * 2'), context)).toMatchObject({
      ok: false,
      code: 'EVALUATION',
      field: 'output',
    });
  });
});
