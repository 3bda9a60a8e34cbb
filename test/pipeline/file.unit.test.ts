/** Definition files: the docs example (valid, evaluated end to end, the same as in docs/pipelines.md) and the line and column of issues in YAML and JSON text. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import {
  type PipelineContext,
  pipelineOutput,
  stageEach,
  stageInput,
  stageWhen,
  validatePipeline,
} from '../../contracts';
import { validateText } from '../../client/cli/pipeline/validate';

const root = join(__dirname, '..', '..');
const example = readFileSync(join(root, 'examples', 'pipelines', 'docs.yaml'), 'utf8');

describe('the docs example (examples/pipelines/docs.yaml)', () => {
  it('is the one docs/pipelines.md shows', () => {
    const block = /```yaml\n([\s\S]*?)```/.exec(readFileSync(join(root, 'docs', 'pipelines.md'), 'utf8'))![1]!;
    expect(example).toContain(block);
  });

  it('validates, and maps an input through pages (fan-out) and fields to its output', async () => {
    const v = validatePipeline(parse(example));
    if (!v.ok) throw new Error(JSON.stringify(v.issues));
    const def = v.definition;
    const ctx: PipelineContext = { input: { id: 'doc-1', lang: 'fr', pages: ['s3://b/1.png', 's3://b/2.png'] } };
    expect(await stageEach(def, 'pages', ctx)).toEqual({ ok: true, value: ['s3://b/1.png', 's3://b/2.png'] });
    expect(await stageInput(def, 'pages', ctx, { item: 's3://b/2.png', index: 1 })).toEqual({
      ok: true,
      value: { url: 's3://b/2.png', lang: 'fr' },
    });
    ctx.pages = [
      { status: 'COMPLETED', output: { text: 'page one' }, attempts: 1 },
      { status: 'FAILED', error: 'blurred', attempts: 3 },
    ];
    expect(await stageWhen(def, 'fields', ctx)).toEqual({ ok: true, value: true });
    expect(await stageInput(def, 'fields', ctx)).toEqual({ ok: true, value: { text: 'page one' } });
    ctx.fields = { status: 'COMPLETED', output: { title: 'One' }, attempts: 1 };
    expect(await pipelineOutput(def, ctx)).toEqual({ ok: true, value: { id: 'doc-1', fields: { title: 'One' } } });
    ctx.pages = [{ status: 'FAILED', error: 'blurred', attempts: 3 }];
    expect(await stageWhen(def, 'fields', ctx)).toEqual({ ok: true, value: false });
  });
});

describe('issues of a file point at their line and column', () => {
  const stage = (fields: string) => `name: p\nstages:\n  - name: a\n    endpoint: e\n${fields}`;
  const place = (text: string) => {
    const v = validateText(text);
    expect(v.ok).toBe(false);
    return v.issues.map((i) => [i.code, i.line, i.column]);
  };

  it.each([
    // `$.later` ends at the 7th character of the expression; `later` is no stage.
    ['plain', stage('    input: $.later\n'), [['UNKNOWN_NAME', 5, 18]]],
    ['single-quoted, with a doubled quote', stage("    input: '{ ''x'': $.later }'\n"), [['UNKNOWN_NAME', 5, 28]]],
    ['double-quoted, with escapes', stage('    input: "{ \\"x\\": $.later }"\n'), [['UNKNOWN_NAME', 5, 28]]],
    ['a literal block', stage('    input: |\n      {\n        "x": $.later\n      }\n'), [['UNKNOWN_NAME', 7, 20]]],
    ['a folded block: the field itself', stage('    input: >\n      $.later\n'), [['UNKNOWN_NAME', 5, 12]]],
    ['an unknown field: its key', stage('    input: $.input\n    concurency: 3\n'), [['SHAPE', 6, 5]]],
    ['a YAML syntax error', 'name: p\nstages: [\n', [['FILE_SYNTAX', 3, 1]]],
  ])('%s', (_, text, expected) => {
    expect(place(text)).toEqual(expected);
  });

  it('in JSON text too', () => {
    const json =
      '{\n  "name": "p",\n  "stages": [{ "name": "a", "endpoint": "e", "input": "$join($.later, \\"\\\\n\\")" }]\n}';
    expect(JSON.parse(json)).toBeTruthy();
    // `$.later` ends at column 68 of line 3, inside `"$join($.later, \"\\n\")"`.
    expect(place(json)).toEqual([['UNKNOWN_NAME', 3, 68]]);
  });
});
