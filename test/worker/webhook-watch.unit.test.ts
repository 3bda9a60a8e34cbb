/**
 * The daemon's word on webhooks: an episode of lost webhooks is said once when it begins (naming
 * SLUICE_PUBLIC_URL) and once when webhooks kept coming for the episode's end, however often the
 * state turns in between; a new loss after that end is a new episode.
 */
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { webhookHealth } from '../../worker/webhook-watch';

describe("the daemon's word on webhooks", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('says an episode once at its start and once at its end, not at each turn', () => {
    const lines: { level: number; msg: string }[] = [];
    const logger = pino({ level: 'debug' }, { write: (l: string) => void lines.push(JSON.parse(l)) });
    const health = webhookHealth(logger, () => 'http://daemon.example:8080', 10_000);
    let job = 0;
    const lose = (): void => {
      // Three jobs found done by a poll whose webhooks never came (past their grace): polling.
      for (let k = 0; k < 3; k++) health.polledDone(`j${job++}`);
      vi.advanceTimersByTime(600);
      health.healthy();
    };
    const hear = (): void => {
      for (let k = 0; k < 2; k++) health.received(`j${job++}`);
    };
    const warns = (): string[] => lines.filter((l) => l.level === 40).map((l) => l.msg);

    for (let turn = 0; turn < 5; turn++) {
      lose();
      expect(health.healthy()).toBe(false);
      hear();
      expect(health.healthy()).toBe(true);
      vi.advanceTimersByTime(2000);
    }
    expect(warns()).toHaveLength(1);
    expect(warns()[0]).toMatch(
      /webhooks stopped reaching this daemon.*SLUICE_PUBLIC_URL \(http:\/\/daemon\.example:8080\)/,
    );
    // Webhooks keep coming: the episode ends, said once.
    vi.advanceTimersByTime(10_000);
    expect(warns()).toHaveLength(2);
    expect(warns()[1]).toMatch(/webhooks reach this daemon again \(for 10 s\).*5 turns to polling/);
    vi.advanceTimersByTime(60_000);
    expect(warns()).toHaveLength(2);
    // A loss after the end is a new episode.
    lose();
    expect(warns()).toHaveLength(3);
    expect(warns()[2]).toMatch(/webhooks stopped reaching this daemon/);
  });
});
