/** How deep a parsed JSON value nests, measured without recursion (a caller's value can be deeper than the call stack). */

/**
 * True when `value` nests arrays and objects more than `max` levels deep (a scalar is depth 0,
 * `{}` and `[]` are 1). Walks with an explicit stack and stops at the first branch over `max`.
 */
export function jsonDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) if (c !== null && typeof c === 'object') stack.push([c, depth + 1]);
  }
  return false;
}
