/**
 * A pipeline definition file's text (YAML, or JSON, which YAML 1.2 reads too) as a value, and the
 * way back from a place in that value (a path, a position inside an expression) to a line and
 * column of the file, so an issue points where the user typed.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Scalar } from 'yaml';

export interface FilePlace {
  line: number;
  column: number;
}

export interface PipelineSource {
  /** The parsed value; undefined when the text does not parse. */
  value: unknown;
  /** Syntax errors of the text, with their place. */
  errors: (FilePlace & { message: string })[];
  /** The place of the field (its key) at `path`; with `position`, of that character (1-based) of its expression when it can tell. */
  locate(path: (string | number)[], position?: number): FilePlace | undefined;
}

/** The node at `path`, or the deepest one on the way; a map's last step gives its key, or its value when `value`. */
function nodeAt(doc: Document, path: (string | number)[], value: boolean): Node | undefined {
  let node: unknown = doc.contents;
  for (const [i, step] of path.entries()) {
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && p.key.value === step);
      if (!pair) return node;
      node = last && !value ? pair.key : (pair.value ?? pair.key);
    } else if (isSeq(node) && typeof step === 'number' && node.items[step]) node = node.items[step];
    else return node as Node;
  }
  return node as Node;
}

/** Offset in a quoted scalar's source of the value's character `index` (single-line quotes only). */
function quotedOffset(source: string, quote: string, index: number): number | undefined {
  let at = 1;
  for (let n = 0; n < index; n++) {
    if (at >= source.length - 1) return undefined;
    if (quote === "'") at += source.startsWith("''", at) ? 2 : 1;
    else if (source[at] !== '\\') at += 1;
    else at += ({ x: 4, u: 6, U: 10 } as Record<string, number>)[source[at + 1] ?? ''] ?? 2;
  }
  return at;
}

/** Offset in a literal block scalar's source (`|`) of the value's character `index`. */
function literalOffset(source: string, value: string, index: number): number | undefined {
  const lines = source.split('\n');
  if (/\d/.test(lines[0] ?? '')) return undefined; // an explicit indentation indicator: rare, not mapped
  const indent = Math.min(
    ...lines
      .slice(1)
      .filter((l) => l.trim() !== '')
      .map((l) => /^ */.exec(l)![0].length),
  );
  const before = value.slice(0, index).split('\n');
  const line = before.length; // 1-based among the content lines
  let at = 0;
  for (let l = 0; l < line; l++) at += lines[l]!.length + 1;
  return at + indent + before[before.length - 1]!.length;
}

/** Offset in the scalar's source of character `index` of its value, when the scalar's style allows it. */
function scalarOffset(node: Scalar, text: string, index: number): number | undefined {
  const [start, end] = node.range ?? [0, 0];
  const source = text.slice(start, end);
  const value = String(node.value);
  index = Math.min(index, Math.max(0, value.length - 1));
  if (node.type === 'PLAIN') return source === value ? index : undefined;
  if ((node.type === 'QUOTE_SINGLE' || node.type === 'QUOTE_DOUBLE') && !source.includes('\n'))
    return quotedOffset(source, source[0]!, index);
  if (node.type === 'BLOCK_LITERAL') return literalOffset(source, value, index);
  return undefined;
}

/** Parses `text`; the value is whatever it holds (validation comes after). */
export function readPipelineSource(text: string): PipelineSource {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const placeOf = (offset: number): FilePlace => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  const errors = doc.errors.map((e) => ({ ...placeOf(e.pos[0]), message: e.message }));
  let value: unknown;
  if (errors.length === 0) {
    try {
      value = doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      errors.push({ line: 1, column: 1, message: (err as Error).message });
    }
  }
  const locate = (path: (string | number)[], position?: number): FilePlace | undefined => {
    const node = nodeAt(doc, path, position !== undefined);
    if (!node?.range) return undefined;
    const index = position !== undefined ? Math.max(0, position - 1) : undefined;
    const inside = index !== undefined && isScalar(node) ? scalarOffset(node, text, index) : undefined;
    return placeOf(node.range[0] + (inside ?? 0));
  };
  return { value, errors, locate };
}
