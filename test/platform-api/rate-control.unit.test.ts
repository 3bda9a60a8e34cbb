import { describe, expect, it } from 'vitest';
import { RateControl } from '../../platform-api/rate-control';

const W = 10_000;

/**
 * One event at time `at` (ms): a 429 with its Retry-After, `answers` other answers, or a look at
 * the share, the pause and the counts.
 */
type Step = {
  at: number;
  retryAfter?: number;
  answers?: number;
  share?: number;
  pausedUntil?: number;
  episodes?: number;
  cuts?: number;
};

type Options = {
  decrease?: number;
  recoveryWindows?: number;
  minShare?: number;
  confirmRefused?: number;
  confirmFraction?: number;
};

/**
 * Replays `steps` on a fresh control and checks every expectation they carry. Unless `opts` says
 * otherwise, one 429 confirms its episode (the rules of the pause, the episode and the recovery);
 * the confirmation has its own tests below.
 */
function replay(steps: Step[], opts: Options = { confirmRefused: 1 }): void {
  const c = new RateControl({ windowMs: W, ...opts });
  for (const s of steps) {
    for (let k = 0; k < (s.answers ?? 0); k++) c.answered(s.at);
    if (s.retryAfter !== undefined) {
      c.rateLimited(s.at, s.retryAfter);
      c.answered(s.at);
    }
    if (s.share !== undefined) expect(c.share(s.at), `share at ${s.at}`).toBeCloseTo(s.share, 6);
    if (s.pausedUntil !== undefined) expect(c.pausedUntil(), `pause at ${s.at}`).toBe(s.pausedUntil);
    if (s.episodes !== undefined) expect(c.episodes, `episodes at ${s.at}`).toBe(s.episodes);
    if (s.cuts !== undefined) expect(c.cuts, `cuts at ${s.at}`).toBe(s.cuts);
  }
}

describe('RateControl: a 429 is a signal about the window', () => {
  it('starts at the full limit, unpaused', () => {
    replay([
      { at: 0, share: 1, episodes: 0 },
      { at: 50 * W, share: 1 },
    ]);
  });

  it('twenty 429s in one window are one episode: one reduction, the pause of the latest', () => {
    const burst: Step[] = Array.from({ length: 20 }, (_, i) => ({ at: 1000 + i * 400, retryAfter: 1000 }));
    replay([
      ...burst,
      { at: 8_700, share: 0.7, pausedUntil: 8_600 + 1000, episodes: 1 },
      // Recovery starts at the end of the last pause (9,600) and is linear over three windows.
      { at: 9_600, share: 0.7 },
      { at: 9_600 + W, share: 0.8 },
      { at: 9_600 + 2 * W, share: 0.9 },
      { at: 9_600 + 3 * W, share: 1 },
      { at: 9_600 + 10 * W, share: 1, episodes: 1 },
    ]);
  });

  it('honours Retry-After as given: the latest end of every pause asked for wins', () => {
    replay([
      { at: 0, retryAfter: 5000, pausedUntil: 5000 },
      { at: 100, retryAfter: 1000, pausedUntil: 5000 },
      { at: 4000, retryAfter: 3000, pausedUntil: 7000, episodes: 1 },
      { at: 7000, share: 0.7 },
    ]);
  });

  it('a 429 inside the episode after its pause pauses only its own request, not the lane', () => {
    // Isolated 429s (a proxy, a spike) a second or two apart: one pause, one reduction.
    replay([
      { at: 0, retryAfter: 1000, pausedUntil: 1000 },
      { at: 1500, retryAfter: 1000, pausedUntil: 1000, episodes: 1 },
      { at: 4000, retryAfter: 1000, pausedUntil: 1000, episodes: 1, share: 0.7 },
      { at: W + 1, retryAfter: 1000, pausedUntil: W + 1001, episodes: 2 },
    ]);
  });

  it('a 429 inside the episode restarts recovery from the reduced share without reducing again', () => {
    replay([
      { at: 0, retryAfter: 1000 },
      { at: 1000 + W / 2, share: 0.7 + 0.3 / 6 },
      { at: 9_000, retryAfter: 1000, share: 0.7, episodes: 1 },
      { at: 10_000 + 3 * W, share: 1 },
    ]);
  });

  it('a 429 after the episode is a new one and reduces from the share reached', () => {
    replay([
      { at: 0, retryAfter: 0 },
      // 2.5 windows into the recovery: 0.7 + 0.3 * 2.5 / 3 = 0.95, reduced to 0.665.
      { at: 2.5 * W, retryAfter: 0, share: 0.665, episodes: 2 },
      { at: 2.5 * W + 1.5 * W, share: 0.665 + (1 - 0.665) / 2 },
      { at: 2.5 * W + 3 * W, share: 1 },
    ]);
  });

  it('a Retry-After longer than the window keeps later 429s of the pause in the same episode', () => {
    replay([
      { at: 0, retryAfter: 3 * W },
      { at: 2 * W, retryAfter: 3 * W, episodes: 1, pausedUntil: 5 * W },
      // Answered while paused: sent before the pause, it says nothing new.
      { at: 4 * W, retryAfter: 0, episodes: 1, share: 0.7 },
      { at: 5 * W, retryAfter: 0, episodes: 2, share: 0.49 },
    ]);
  });

  it('a 429 every window (a persistent other client) settles at a share, and recovers in three windows', () => {
    // s = 0.7 * (s + (1 - s) / 3): the share a window's recovery and one reduction balance at.
    const steps: Step[] = Array.from({ length: 30 }, (_, i) => ({ at: i * W, retryAfter: 0 }));
    replay([...steps, { at: 29 * W, share: 0.7 / (3 - 1.4), episodes: 30 }, { at: 32 * W, share: 1 }]);
  });

  it('never reduces below the minimum share', () => {
    const steps: Step[] = Array.from({ length: 5 }, (_, i) => ({ at: i * W, retryAfter: 0 }));
    replay([...steps, { at: 4 * W, share: 0.05 }], { decrease: 0.1, confirmRefused: 1 });
  });

  it('tells when a recovering share reaches a target', () => {
    const c = new RateControl({ windowMs: W, confirmRefused: 1 });
    expect(c.whenShare(1, 0)).toBe(0);
    c.rateLimited(0, 1000);
    expect(c.whenShare(0.7, 500)).toBe(500);
    expect(c.whenShare(0.8, 500)).toBeCloseTo(1000 + W, -1); // ceiled to whole ms
    expect(c.whenShare(1, 2000)).toBe(1000 + 3 * W);
  });

  it('the factor and the recovery are options', () => {
    replay(
      [
        { at: 0, retryAfter: 0, share: 0.5 },
        { at: W / 2, share: 0.75 },
        { at: W, share: 1 },
      ],
      { decrease: 0.5, recoveryWindows: 1, confirmRefused: 1 },
    );
    expect(() => new RateControl({ windowMs: W, decrease: 1 })).toThrow(RangeError);
  });
});

describe('RateControl: only a full window reduces the share, not stray 429s', () => {
  it('stray 429s among clean answers pause the lane once per episode and never cut its share', () => {
    // 25 429s over 28 s of a lane answering 100 requests a second (issue 19's 429 row): three episodes.
    const steps: Step[] = [];
    for (let k = 0; k < 25; k++) steps.push({ at: 300 + k * 1100, answers: 110, retryAfter: 1000 });
    replay([...steps, { at: 28_000, share: 1, cuts: 0, episodes: 3 }], {});
  });

  it('the first 429 of an episode pauses the lane for its Retry-After even when it cuts nothing', () => {
    replay([{ at: 100, answers: 500, retryAfter: 1000, pausedUntil: 1100, share: 1, episodes: 1, cuts: 0 }], {});
  });

  it('a storm (most answers refused) is confirmed at its third 429: one cut, recovered in three windows', () => {
    replay(
      [
        { at: 0, answers: 400, retryAfter: 1000, share: 1, cuts: 0 },
        { at: 1200, answers: 1, retryAfter: 1000, share: 1, cuts: 0 },
        { at: 1300, retryAfter: 1000, share: 0.7, cuts: 1 },
        { at: 1400, retryAfter: 1000, cuts: 1 },
        { at: 2000, answers: 2, retryAfter: 1000, cuts: 1, episodes: 1 },
        // Recovery counts from the latest 429 of the confirmed episode.
        { at: 2000 + 3 * W, share: 1 },
      ],
      {},
    );
  });

  it('the count and the fraction that confirm an episode are options', () => {
    replay(
      [
        { at: 0, retryAfter: 0, cuts: 0 },
        { at: 10, answers: 2, retryAfter: 0, share: 0.7, cuts: 1 },
      ],
      { confirmRefused: 2, confirmFraction: 0.5 },
    );
    replay(
      [
        { at: 0, retryAfter: 0, cuts: 0 },
        { at: 10, answers: 3, retryAfter: 0, share: 1, cuts: 0 },
      ],
      { confirmRefused: 2, confirmFraction: 0.5 },
    );
  });

  it('a stray 429 while the share recovers from a storm does not restart its recovery', () => {
    replay(
      [
        { at: 0, retryAfter: 0 },
        { at: 1, retryAfter: 0 },
        { at: 2, retryAfter: 0, share: 0.7, cuts: 1 },
        // A new episode 1.5 windows later, one 429 among many answers: no cut, the recovery goes on.
        {
          at: 1.5 * W,
          answers: 300,
          retryAfter: 1000,
          share: 0.7 + 0.3 * ((1.5 * W - 2) / (3 * W)),
          cuts: 1,
          episodes: 2,
        },
        { at: 1.5 * W + 1000, answers: 100, share: 0.7 + 0.3 * ((1.5 * W + 998) / (3 * W)) },
        { at: 2 + 3 * W, share: 1 },
      ],
      {},
    );
  });
});
