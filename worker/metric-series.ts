/**
 * Metrics written anew at each scrape from states kept by id (batches, scalers): a table of
 * definitions, each a value (or one value per extra label) read from a state.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** One metric of a table: its name, help, and what it reads from each state. */
export interface SeriesDef<S> {
  name: string;
  help: string;
  /** A counter (the state's value only grows within a run); a gauge otherwise. */
  counter?: boolean;
  /** An extra label: `value` then returns one number per label value. */
  label?: string;
  /** The value (undefined: no series for this state), or per value of `label`. */
  value: (s: S) => number | undefined | Record<string, number>;
}

/**
 * Registers every metric of `defs`; at each scrape each one is reset and set from `states()`,
 * labelled `base(state)` (and its own label): a state gone from `states()` leaves no series.
 */
export function defineSeries<S>(
  registry: Registry,
  defs: SeriesDef<S>[],
  baseLabels: string[],
  base: (s: S) => Record<string, string>,
  states: () => Iterable<S>,
): void {
  for (const d of defs) {
    const labelNames = d.label ? [...baseLabels, d.label] : baseLabels;
    const fill = (set: (labels: Record<string, string>, v: number) => void): void => {
      for (const s of states()) {
        const v = d.value(s);
        if (typeof v === 'number') set(base(s), v);
        else if (v && d.label) for (const [k, n] of Object.entries(v)) set({ ...base(s), [d.label]: k }, n);
      }
    };
    const common = { name: d.name, help: d.help, labelNames, registers: [registry] };
    if (d.counter) {
      const c: Counter = new Counter({
        ...common,
        collect: () => {
          c.reset();
          fill((l, v) => c.inc(l, Math.max(0, v)));
        },
      });
    } else {
      const g: Gauge = new Gauge({
        ...common,
        collect: () => {
          g.reset();
          fill((l, v) => g.set(l, v));
        },
      });
    }
  }
}

/**
 * States kept by id while their orchestration runs, and for `retentionMs` after it ended (its final
 * counts): the series follow what runs now, not everything ever run.
 */
export class RetainedStates<S extends { phase: string }> {
  private readonly kept = new Map<string, { state: S; endedAt?: number }>();

  constructor(
    private readonly idOf: (s: S) => string,
    private readonly retentionMs: number,
  ) {}

  /** A state; one in phase `done` (its final state) counts as ended from now. */
  set(state: S, now: number): void {
    const id = this.idOf(state);
    const endedAt = state.phase === 'done' ? (this.kept.get(id)?.endedAt ?? now) : undefined;
    this.kept.set(id, { state, ...(endedAt !== undefined ? { endedAt } : {}) });
  }

  /** It no longer runs and its final state is not known: its last state stays, phase `done`. */
  ended(id: string, now: number): void {
    const b = this.kept.get(id);
    if (b && b.endedAt === undefined) this.kept.set(id, { state: { ...b.state, phase: 'done' }, endedAt: now });
  }

  /** The ids seen running (not ended). */
  running(): string[] {
    return [...this.kept].filter(([, b]) => b.endedAt === undefined).map(([id]) => id);
  }

  /** Every state kept. */
  states(): S[] {
    return [...this.kept.values()].map((b) => b.state);
  }

  /** The state kept of `id`. */
  get(id: string): S | undefined {
    return this.kept.get(id)?.state;
  }

  get size(): number {
    return this.kept.size;
  }

  /** Drops those that ended more than `retentionMs` before `now`. */
  prune(now: number): void {
    for (const [id, b] of this.kept)
      if (b.endedAt !== undefined && now - b.endedAt > this.retentionMs) this.kept.delete(id);
  }
}
