/** `sluice pipeline validate FILE` as a process: the docs example is valid, a bad file's errors point at their line and column, exit 2. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sluice } from './run-sluice';

const example = join(__dirname, '..', '..', 'examples', 'pipelines', 'docs.yaml');

/** A definition with four mistakes: a range, a later stage read in `when`, $item outside each, a syntax error. */
const BAD_YAML = `name: bad
stages:
  - name: pages
    endpoint: ocr
    each: $.input.pages
    input: "{ 'url': $item }"
    concurrency: 0
  - name: fields
    endpoint: extract
    when: '$count($.pages[status = ''COMPLETED'']) > 0 and $.summary'
    input: |
      {
        'text': $join($.pages.output.text, ' '),
        'page': $item
      }
  - name: summary
    endpoint: llm
    input: "{ 'text': $.fields.output.text & }"
`;

describe('sluice pipeline validate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-pipeline-'));

  it('accepts examples/pipelines/docs.yaml (the docs example), in words and in JSON', async () => {
    const r = await sluice(['pipeline', 'validate', example]);
    expect(r).toMatchObject({ code: 0, stdout: 'ok: docs, 2 stages (pages → fields)\n', stderr: '' });
    const j = await sluice(['pipeline', 'validate', example, '--json']);
    expect(j.code).toBe(0);
    expect(JSON.parse(j.stdout)).toEqual({ ok: true, name: 'docs', stages: ['pages', 'fields'], errors: [] });
  });

  it('names every error of a bad file with its stage, field, line and column; exit 2', async () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, BAD_YAML);
    const r = await sluice(['pipeline', 'validate', file]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.split('\n')).toEqual([
      `sluice: ${file}: 4 errors`,
      '  stage "pages", field "concurrency", line 7 col 5: Too small: expected number to be >=1',
      '  stage "fields", field "when", line 10 col 68: reads stage "summary", which comes after stage "fields": a stage reads only the input and the stages before it',
      '  stage "fields", field "input", line 14 col 21: $item is bound only in the input of a stage with each',
      '  stage "summary", field "input", line 18 col 46: The symbol "}" cannot be used as a unary operator',
      '',
    ]);
    const j = await sluice(['pipeline', 'validate', file, '--json']);
    expect(j.code).toBe(2);
    const out = JSON.parse(j.stdout) as { ok: boolean; errors: Record<string, unknown>[] };
    expect(out.ok).toBe(false);
    expect(out.errors[1]).toEqual({
      code: 'STAGE_ORDER',
      stage: 'fields',
      field: 'when',
      line: 10,
      column: 68,
      position: 55,
      message: expect.stringMatching(/^reads stage "summary"/),
    });
  });

  it('reads JSON too, and reports a file that does not parse or does not exist (exit 2)', async () => {
    const json = join(dir, 'p.json');
    writeFileSync(json, JSON.stringify({ name: 'j', stages: [{ name: 'a', endpoint: 'e', input: '$.input' }] }));
    expect(await sluice(['pipeline', 'validate', json])).toMatchObject({ code: 0, stdout: 'ok: j, 1 stage (a)\n' });
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'name: x\nstages: [\n');
    const b = await sluice(['pipeline', 'validate', broken]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/^sluice: .*broken\.yaml: 1 error\n {2}line \d+ col \d+: /);
    const missing = await sluice(['pipeline', 'validate', join(dir, 'none.yaml')]);
    expect(missing).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^sluice: cannot read .*none\.yaml: no such file/),
    });
  });
});
