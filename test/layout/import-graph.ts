/**
 * The source tree's graph of relative imports, and its cycles (Tarjan's strongly connected
 * components). Pure: the boundaries test hands it file names and their text; nothing is started.
 */
import { posix } from 'node:path';

/** One import statement: what it names, and whether it brings only types. */
export interface Import {
  spec: string;
  typeOnly: boolean;
  /** `import('…')` or `require('…')`: loaded when the code runs, not with the file. */
  dynamic: boolean;
}

/** One file importing another (both relative to the repository root); type-only when every import between them is. */
export interface Edge {
  from: string;
  to: string;
  typeOnly: boolean;
}

/** A statement `import|export [type] <clause> from '…'` (across lines) or `import '…'`, at the start of a line. */
const STATIC = /^\s*(?:(import|export)\s+(type\s+)?([^'";]*?)\bfrom\s*|import\s*)['"]([^'"]+)['"]/gm;
/** `import('…')` and `require('…')`: values, always. */
const DYNAMIC = /\b(?:import|require)\(\s*['"]([^'"]+)['"]\s*\)/g;

/** A clause `{ type A, type B }`: nothing but types, so the compiler drops the import as `import type` does. */
const onlyInlineTypes = (clause: string): boolean => {
  const names =
    /^\{([^}]*)\}$/
      .exec(clause.trim())?.[1]
      ?.split(',')
      .map((n) => n.trim())
      .filter(Boolean) ?? [];
  return names.length > 0 && names.every((n) => n.startsWith('type '));
};

/** Every import of a source text (comments already stripped). */
export function importsOf(text: string): Import[] {
  const out: Import[] = [];
  for (const [, , typeKeyword, clause, spec] of text.matchAll(STATIC))
    out.push({ spec: spec!, typeOnly: Boolean(typeKeyword) || onlyInlineTypes(clause ?? ''), dynamic: false });
  for (const m of text.matchAll(DYNAMIC)) out.push({ spec: m[1]!, typeOnly: false, dynamic: true });
  return out;
}

/** The source file a relative specifier names (`./x.ts`, `./x` as `x.ts`, or `./x/index.ts`); undefined for a package or a file not in `files`. */
export function resolveImport(from: string, spec: string, files: ReadonlySet<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = posix.normalize(posix.join(posix.dirname(from), spec));
  return [base, `${base}.ts`, `${base}/index.ts`].find((f) => f.endsWith('.ts') && files.has(f));
}

/** The graph of relative imports between `files`, `text(file)` giving each one's source without comments. */
export function importGraph(files: readonly string[], text: (file: string) => string): Edge[] {
  const known = new Set(files);
  const edges = new Map<string, Edge>();
  for (const from of files) {
    for (const { spec, typeOnly } of importsOf(text(from))) {
      const to = resolveImport(from, spec, known);
      if (!to) continue;
      const key = `${from}\0${to}`;
      const seen = edges.get(key);
      edges.set(key, { from, to, typeOnly: (seen?.typeOnly ?? true) && typeOnly });
    }
  }
  return [...edges.values()];
}

/** Strongly connected components (Tarjan), each with more than one file or a file importing itself. */
function cyclicComponents(next: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || next.get(v)?.includes(v)) out.push(component.sort());
  };
  for (const v of [...next.keys()].sort()) if (!index.has(v)) visit(v);
  return out;
}

/** The shortest way from `start` back to itself inside `component` (breadth first). */
function shortestLoop(start: string, component: ReadonlySet<string>, next: Map<string, string[]>): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i]!;
    for (const w of (next.get(v) ?? []).filter((x) => component.has(x))) {
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(cameFrom.get(path[0]!)!);
        return [...path, start];
      }
      if (!cameFrom.has(w)) {
        cameFrom.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

/**
 * One line per import cycle: `a.ts -> b.ts -> a.ts` (the shortest loop through the component's first
 * file), followed by the rest of the component when more files are caught in it.
 */
export function importCycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, string[]>();
  for (const { from, to } of edges) {
    next.set(from, [...(next.get(from) ?? []), to].sort());
    if (!next.has(to)) next.set(to, []);
  }
  return cyclicComponents(next).map((component) => {
    const loop = shortestLoop(component[0]!, new Set(component), next);
    const others = component.filter((f) => !loop.includes(f));
    return loop.join(' -> ') + (others.length ? ` (same cycle as: ${others.join(', ')})` : '');
  });
}

/** A layer: a top-level folder (or a folder inside one, as `client/cli/`) and its rank, lowest first. */
export interface Layer {
  dir: string;
  rank: number;
  why: string;
}

/** A downward import the ranks allow but the architecture refuses, `unless` the one way it is fine. */
export interface Refusal {
  from: string;
  to: string;
  unless?: (edge: Edge) => boolean;
  why: string;
}

/** The layer a file is in: the longest folder of `layers` it sits under. */
export function layerOf(file: string, layers: readonly Layer[]): Layer | undefined {
  return layers.filter((l) => file.startsWith(l.dir)).sort((a, b) => b.dir.length - a.dir.length)[0];
}

/**
 * Each import that points up a layer, across to another layer of the same rank, or down where a
 * refusal forbids it, keyed `file -> folder imported from` with the reason.
 */
export function layerViolations(
  edges: readonly Edge[],
  layers: readonly Layer[],
  refusals: readonly Refusal[],
): Map<string, string> {
  const out = new Map<string, string>();
  for (const edge of edges) {
    const from = layerOf(edge.from, layers);
    const to = layerOf(edge.to, layers);
    if (!from || !to || from === to) continue;
    const refusal = refusals.find((r) => r.from === from.dir && r.to === to.dir && !r.unless?.(edge));
    const why =
      to.rank > from.rank
        ? `${from.dir} (rank ${from.rank}) imports the higher ${to.dir} (rank ${to.rank})`
        : to.rank === from.rank
          ? `${from.dir} imports ${to.dir}, a layer of the same rank (${to.rank})`
          : refusal && `${from.dir} imports ${to.dir}: ${refusal.why}`;
    if (why) out.set(`${edge.from} -> ${posix.dirname(edge.to)}`, why);
  }
  return out;
}
