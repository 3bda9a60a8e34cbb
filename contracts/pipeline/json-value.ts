/** What an expression produced, as plain JSON: JSONata's sequence wrappers stripped, its functions and infinities refused, nesting bounded. */
import { LIMITS } from '../limits';
import { type ExpressionFailureCode } from './errors';

/** A plain JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type Plain = { ok: true; value: JsonValue } | { ok: false; code: ExpressionFailureCode; message: string };

/**
 * Copies `value` into plain arrays and objects (JSONata returns arrays carrying `sequence` and
 * `keepSingleton` flags, and may return functions or regular expressions). An object's key whose
 * value is undefined is dropped, as JSON.stringify would; anything else that is not JSON is refused.
 * Nesting deeper than LIMITS.jsonDepth is refused before it is walked further.
 */
export function toPlainJson(value: unknown, where = 'the value'): Plain {
  const refuse = (code: ExpressionFailureCode, message: string): Plain => ({ ok: false, code, message });
  let failure: Plain | undefined;
  const copy = (v: unknown, depth: number, at: string): JsonValue => {
    if (failure) return null;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) failure = refuse('NOT_JSON', `${at} is ${v}, not a JSON number`);
      return v;
    }
    if (typeof v !== 'object' || v instanceof RegExp) {
      failure = refuse('NOT_JSON', `${at} is a ${typeof v === 'object' ? 'regular expression' : typeof v}, not JSON`);
      return null;
    }
    if (depth + 1 > LIMITS.jsonDepth) {
      failure = refuse('TOO_DEEP', `${where} nests deeper than ${LIMITS.jsonDepth} levels`);
      return null;
    }
    if (Array.isArray(v)) return v.filter((x) => x !== undefined).map((x, i) => copy(x, depth + 1, `${at}[${i}]`));
    const out: JsonObject = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) out[k] = copy(x, depth + 1, `${at}.${k}`);
    return out;
  };
  const plain = copy(value, 0, where);
  return failure ?? { ok: true, value: plain };
}

/** The UTF-8 JSON size of `value` when it is over `limit` bytes; undefined when within. */
export function bytesOver(value: JsonValue, limit: number): number | undefined {
  const text = JSON.stringify(value);
  // A UTF-16 code unit is at most 3 bytes of UTF-8: most values need no encoding to know.
  if (text.length * 3 <= limit) return undefined;
  const bytes = new TextEncoder().encode(text).length;
  return bytes > limit ? bytes : undefined;
}
