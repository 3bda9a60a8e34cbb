/**
 * Pipelines end to end on the real stack: three stages with a fan-out and a `when`, every input's
 * line exactly once, the fan-out gathered in order, each stage's jobs counted by the platform,
 * across continue-as-new.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inputFile, mixedEndpoint, platformJobs, readJsonl } from '../batch/helpers';
import { pipelineResults, pipelineStack, pipelineStoreKeys } from './helpers';

describe('pipeline workflow', () => {
  const ctx = pipelineStack();

  it('three stages, a fan-out and a when: one line per input, elements gathered in order, jobs per stage', async () => {
    const split = mixedEndpoint(ctx.s, 'pipe-split', 2);
    const rest = mixedEndpoint(ctx.s, 'pipe-rest', 2);
    const N = 30;
    const lines: (object | string)[] = [];
    for (let i = 0; i < N; i++) {
      if (i === 13) lines.push('[1, 2]');
      else
        lines.push({
          id: `doc-${i}`,
          go: i % 3 !== 0,
          parts: Array.from({ length: 1 + (i % 3) }, (_, e) => `${i}.${e}`),
        });
    }
    const { file, dir } = inputFile(lines);
    const outDir = join(dir, 'out');
    const id = await ctx.pipeline.start({
      definition: {
        name: 'three',
        maxInFlight: 8,
        stages: [
          {
            name: 'split',
            endpoint: split,
            each: '$.input.parts',
            input: "{ 'kind': 'echo', 'part': $item, 'at': $index }",
          },
          {
            name: 'join',
            endpoint: rest,
            when: '$.input.go',
            input: "{ 'kind': 'echo', 'text': $join($.split.output.part, '+') }",
          },
          { name: 'final', endpoint: rest, input: "{ 'kind': 'echo', 'len': $length($.join.output.text) }" },
        ],
        output: "{ 'id': $.input.id, 'text': $.join.output.text, 'len': $.final.output.len }",
      },
      source: file,
      outDir,
      options: { stepsPerRun: 2 },
    });
    const summary = await ctx.pipeline.result(id);
    const results = pipelineResults(outDir, N);
    let elements = 0;
    let went = 0;
    for (let i = 0; i < N; i++) {
      const r = results.get(i)!;
      if (i === 13) {
        expect(r).toMatchObject({ status: 'BAD_INPUT', error: expect.stringMatching(/line 14/) });
        continue;
      }
      const parts = Array.from({ length: 1 + (i % 3) }, (_, e) => `${i}.${e}`);
      elements += parts.length;
      if (i % 3 === 0) {
        expect(r, `input ${i}`).toMatchObject({ status: 'SKIPPED', stage: 'join' });
        continue;
      }
      went++;
      const text = parts.join('+');
      expect(r, `input ${i}`).toMatchObject({
        status: 'COMPLETED',
        output: { id: `doc-${i}`, text, len: text.length },
      });
      expect(r.stages.split).toHaveLength(parts.length);
      expect(r.stages.join).toMatchObject({ status: 'COMPLETED', attempts: 1, jobIds: [expect.any(String)] });
    }
    expect(summary).toMatchObject({ phase: 'done', counts: { done: N, inFlight: 0 } });
    // stepsPerRun 2: it continued as new several times without losing an input.
    expect(summary.runs).toBeGreaterThan(1);
    expect(summary.counts.byStatus).toEqual({ COMPLETED: went, SKIPPED: N - 1 - went, BAD_INPUT: 1 });
    // One remote job per element of split, per input that went on in join and in final.
    expect(platformJobs(ctx.s, split)).toHaveLength(elements);
    expect(platformJobs(ctx.s, rest)).toHaveLength(2 * went);
    // Each stage's outputs, by input (and element).
    const splitLines = readJsonl<{ index: number; element: number; output: { part: string } }>(
      join(outDir, 'stages', 'split.jsonl'),
    );
    expect(splitLines).toHaveLength(elements);
    for (const l of splitLines) expect(l.output.part).toBe(`${l.index}.${l.element}`);
    expect(readJsonl(join(outDir, 'stages', 'final.jsonl'))).toHaveLength(went);
    expect(readJsonl(join(outDir, 'dead-letter.jsonl'))).toEqual([]);
    expect(JSON.parse(readFileSync(join(outDir, 'summary.json'), 'utf8'))).toMatchObject({ phase: 'done' });
    // The store keeps no input's context (nor a step's plan) once the input ended: it does not grow with the file.
    expect(pipelineStoreKeys(ctx.s.resultsDir, id, 'context')).toEqual([]);
    expect(pipelineStoreKeys(ctx.s.resultsDir, id, 'contexts')).toEqual([]);
    expect(pipelineStoreKeys(ctx.s.resultsDir, id, 'steps')).toEqual([]);
  }, 180_000);
});
