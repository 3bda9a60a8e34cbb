/** The literals the names shared across the workflow boundary (contracts/names) stand for. */
import * as names from '../../contracts/names';

/** One shared name's literal: a whole constant value, or the fixed head of an id builder. */
export interface SharedLiteral {
  name: string;
  literal: string;
  whole: boolean;
}

/** Every literal a shared name stands for: constant values, and the fixed head of each id builder. */
export function sharedLiterals(): SharedLiteral[] {
  const out: SharedLiteral[] = [];
  const walk = (name: string, v: unknown): void => {
    if (typeof v === 'string') out.push({ name, literal: v, whole: true });
    else if (typeof v === 'function') {
      const sample = (v as (...a: unknown[]) => unknown)('\u0001', 7);
      const head = typeof sample === 'string' ? sample.split('\u0001')[0] : '';
      if (head && head.length >= 3) out.push({ name, literal: head, whole: false });
    } else if (v && typeof v === 'object' && !Array.isArray(v))
      for (const [k, x] of Object.entries(v)) walk(`${name}.${k}`, x);
    // Arrays list members of string-literal unions (statuses, reasons): the compiler checks their copies.
  };
  for (const [k, v] of Object.entries(names)) walk(k, v);
  return out.filter((l, i) => out.findIndex((o) => o.literal === l.literal) === i);
}
