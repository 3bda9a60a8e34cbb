/** When the pipeline's phase ends a step's rounds: the rule the step's control watch applies to each answer. */
import { describe, expect, it } from 'vitest';
import { phaseEndsRounds } from '../../activities/pipeline/watch';

describe('phaseEndsRounds', () => {
  it.each([
    // phase, the step reads, it saw the pipeline paused, the rounds end
    ['cancelling', true, false, true],
    ['cancelling', false, false, true],
    ['paused', true, false, true],
    ['paused', false, true, false],
    ['running', true, false, false],
    ['running', true, true, false],
    ['running', false, false, false],
    ['running', false, true, true],
    [undefined, false, true, false],
    ['finishing', false, true, false],
  ] as const)('%s, reading %s, saw paused %s: ends %s', (phase, reading, sawPaused, ends) => {
    expect(phaseEndsRounds(phase, { reading, sawPaused })).toBe(ends);
  });
});
