/**
 * The scaler's config as the workflow applies it (workflows/scaler/config.ts) as tables: a live
 * change (the configure update) and the backlog scan period. Pure: no server, no process.
 */
import { describe, expect, it } from 'vitest';
import { ScalerOptions, type ScalerConfig, type ScalerConfigure } from '../../contracts';
import { backlogScanMs, configured } from '../../workflows/scaler/config';

const base: ScalerConfig = ScalerOptions.parse({ floor: 1, ceiling: 6, maxSpendPerHour: 5, warmHoldMs: 0 });

describe('configured: a live change of the config', () => {
  it.each<[string, ScalerConfigure, Partial<ScalerConfig>]>([
    ['no change', {}, {}],
    ['a field set', { targetPerWorker: 2 }, { targetPerWorker: 2 }],
    ['several fields set', { floor: 0, ceiling: 3, headroom: 0 }, { floor: 0, ceiling: 3, headroom: 0 }],
    [
      'a nested field replaced whole',
      { scaleUp: { workers: 2, percent: 50, periodMs: 5000 } },
      { scaleUp: { workers: 2, percent: 50, periodMs: 5000 } },
    ],
    ['an optional field set', { targetQueueDelayMs: 4000 }, { targetQueueDelayMs: 4000 }],
    ['an undefined field stays as it is', { maxSpendPerHour: undefined }, {}],
  ])('%s', (_, change, set) => {
    expect(configured(base, change)).toEqual({ ...base, ...set });
  });

  it.each<[string, ScalerConfigure, (keyof ScalerConfig)[]]>([
    ['null clears an optional field', { maxSpendPerHour: null }, ['maxSpendPerHour']],
    ['null clears several', { maxSpendPerHour: null, warmHoldMs: null }, ['maxSpendPerHour', 'warmHoldMs']],
  ])('%s', (_, change, cleared) => {
    const c = configured(base, change);
    for (const k of cleared) expect(c).not.toHaveProperty(k);
    const rest = { ...base };
    for (const k of cleared) delete rest[k];
    expect(c).toEqual(rest);
  });

  it.each<[string, ScalerConfigure, string]>([
    ['a floor above the ceiling', { floor: 7 }, 'floor 7 must not exceed ceiling 6'],
    ['a ceiling below the floor', { ceiling: 0 }, 'floor 1 must not exceed ceiling 0'],
  ])('refuses %s', (_, change, message) => {
    expect(() => configured(base, change)).toThrow(message);
  });

  it('leaves the config it changes as it was', () => {
    const before = structuredClone(base);
    configured(base, { floor: 0, maxSpendPerHour: null });
    expect(base).toEqual(before);
  });
});

describe('backlogScanMs: the time between backlog pulls', () => {
  const { backlogScanMs: _, ...older } = base;
  it.each<[string, ScalerConfig, number]>([
    ['the default', ScalerOptions.parse({}), 10_000],
    ['as configured', { ...base, backlogScanMs: 2500 }, 2500],
    ['0: never', { ...base, backlogScanMs: 0 }, 0],
    ['a scaler started before the field existed', older as ScalerConfig, 10_000],
  ])('%s', (_, c, ms) => {
    expect(backlogScanMs(c)).toBe(ms);
  });
});
