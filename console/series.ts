/**
 * Samples over time, kept in memory by the console: each time a page reads a batch's or a scaler's
 * state it records one sample (at most one a second per key), in a ring of the last `capacity`.
 * Nothing per item: a sample is a few counters, whatever the batch's size. Before the first sample,
 * a key may have a history rebuilt from durable records (a batch's outcomes: client/outcome-history.ts).
 */

/** One sample: its time (epoch ms) and named values. */
export interface Sample {
  at: number;
  values: Record<string, number | null>;
}

/** What a chart draws: x in epoch seconds, one series per name (`step`: it holds until the next value). */
export interface ChartData {
  x: number[];
  series: { label: string; values: (number | null)[]; step?: boolean }[];
}

/** Options of {@link SeriesBook}. */
export interface SeriesBookOptions {
  /** Samples kept per key. @default 720 (12 minutes at one a second) */
  capacity?: number;
  /** Keys kept; the least recently recorded goes first. @default 200 */
  keys?: number;
}

/** Rings of samples by key (`batch/<id>`, `scaler/<endpoint>`). */
export class SeriesBook {
  private readonly rings = new Map<string, Sample[]>();
  private readonly histories = new Map<string, Sample[]>();
  private readonly capacity: number;
  private readonly maxKeys: number;

  constructor(o: SeriesBookOptions = {}) {
    this.capacity = o.capacity ?? 720;
    this.maxKeys = o.keys ?? 200;
  }

  /** Records a sample; within a second of the last one of `key`, it replaces that one's values (the latest wins). */
  record(key: string, at: number, values: Record<string, number | null>): void {
    let ring = this.rings.get(key);
    if (ring) this.rings.delete(key);
    else ring = [];
    this.rings.set(key, ring); // most recently recorded last
    const last = ring.at(-1);
    if (last && at - last.at < 1000) {
      last.values = values;
      return;
    }
    ring.push({ at, values });
    if (ring.length > this.capacity) ring.splice(0, ring.length - this.capacity);
    while (this.rings.size > this.maxKeys) this.rings.delete(this.rings.keys().next().value!);
  }

  /** Sets the history of `key`: its samples up to some time (the live samples up to then are left out when drawn). */
  setHistory(key: string, samples: Sample[]): void {
    this.histories.delete(key);
    this.histories.set(key, samples);
    while (this.histories.size > this.maxKeys) this.histories.delete(this.histories.keys().next().value!);
  }

  /** True when `key` has a history. */
  hasHistory(key: string): boolean {
    return this.histories.has(key);
  }

  /** The samples of `key`, oldest first: its history, then the live samples taken after it. */
  samples(key: string): readonly Sample[] {
    const live = this.rings.get(key) ?? [];
    const past = this.histories.get(key);
    if (!past?.length) return live;
    const end = past.at(-1)!.at;
    return [...past, ...live.filter((p) => p.at > end)];
  }

  /** The samples as chart data; the names in `stepped` hold their value until the next sample. */
  chartData(key: string, names: string[], stepped: string[] = []): ChartData {
    const s = this.samples(key);
    return {
      x: s.map((p) => Math.round(p.at / 1000)),
      series: names.map((label) => ({
        label,
        values: s.map((p) => p.values[label] ?? null),
        ...(stepped.includes(label) ? { step: true } : {}),
      })),
    };
  }
}
