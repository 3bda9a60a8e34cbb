/**
 * Seeded draws of the fault mode: the n-th request (or webhook) of a stream gets the same numbers
 * for the same seed, whatever happened before it, so the same sequence of requests meets the same
 * faults. Counter-based (a hash of seed, stream and index), so the HTTP and webhook streams never
 * shift each other.
 */

/** A number in [0, 1) from (seed, stream, index, salt): murmur3's finaliser over their mix. */
export function unit(seed: number, stream: number, index: number, salt = 0): number {
  let h =
    (seed ^ Math.imul(stream + 1, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35)) >>>
    0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 2 ** 32;
}

/** One draw: which of `rates` (excluding each other, in order) happened, and a duration in `range`. */
export interface Draw<K extends string> {
  kind: K | null;
  /** A duration in the range of the draw's stream, ms (for delays). */
  ms: number;
}

/** The draws of one stream (HTTP requests, or webhooks), in order. */
export class FaultStream<K extends string> {
  private n = 0;

  constructor(
    private readonly seed: number,
    private readonly stream: number,
    private readonly rates: readonly (readonly [K, number])[],
    private readonly range: readonly [number, number],
  ) {}

  /** Whether any fault of the stream can happen. */
  get active(): boolean {
    return this.rates.some(([, r]) => r > 0);
  }

  /** The next draw of the stream. */
  next(): Draw<K> {
    const i = this.n++;
    const u = unit(this.seed, this.stream, i);
    let acc = 0;
    let kind: K | null = null;
    for (const [k, r] of this.rates) {
      acc += r;
      if (u < acc) {
        kind = k;
        break;
      }
    }
    const [min, max] = this.range;
    return { kind, ms: min + Math.floor(unit(this.seed, this.stream, i, 1) * (max - min + 1)) };
  }
}
