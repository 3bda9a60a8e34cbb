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
