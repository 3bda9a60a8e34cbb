/**
 * What a compiled JSONata expression reads, found statically in its AST: the root names of the
 * context (`name`, `$.name`, `$$.name`) and the variables it uses without binding them. Conservative:
 * a name is reported only where it is certainly read from the root context (`name` and `$.name`
 * never inside a predicate, a later path step, a lambda, the right of `~>` or a transform; `$$`,
 * always the root, anywhere), so a report is never a false error.
 */
import { type ExprNode } from 'jsonata';

/** A name read by the expression and where (JSONata's position: the end of its token). */
export interface NameUse {
  name: string;
  position: number;
}

/** AST nodes as jsonata builds them: more kinds (`path`, `bind`, `apply`, ...) and fields than its typings list. */
interface Node {
  type: string;
  value?: unknown;
  position?: number;
  steps?: Node[];
  arguments?: Node[];
  [field: string]: unknown;
}

/** Node kinds whose operands are evaluated against the same input as the node itself. */
const SAME_CONTEXT = new Set(['binary', 'unary', 'condition', 'block', 'bind', 'function', 'partial']);
/** Fields of those nodes that hold operands (everything else is walked outside the root context). */
const OPERANDS = ['lhs', 'rhs', 'expressions', 'arguments', 'condition', 'then', 'else', 'expression'];

/** Whether field `key` of `node` is evaluated against the node's own input (`$.a ~> $f()`: only the left side). */
const keepsContext = (node: Node, key: string): boolean =>
  (SAME_CONTEXT.has(node.type) && OPERANDS.includes(key)) || (node.type === 'apply' && key === 'lhs');

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && typeof (v as Node).type === 'string';

/** The name a path reads from the root when it starts with one (`name`, `$.name`); `$$.name` anywhere. */
function rootStep(path: Node, atRoot: boolean): Node | undefined {
  const [first, second] = (path.steps ?? []) as Node[];
  if (!first) return undefined;
  if (atRoot && first.type === 'name') return first;
  const rootVariable = (atRoot && first.value === '') || first.value === '$';
  if (first.type === 'variable' && rootVariable && second?.type === 'name' && !first.predicate) return second;
  return undefined;
}

/** Walks every node once, telling the visitor whether it is evaluated against the root context. */
function walk(root: Node, visit: (node: Node, atRoot: boolean) => void): void {
  const seen = new Set<object>();
  const go = (value: unknown, atRoot: boolean): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) return value.forEach((v) => go(v, atRoot));
    const node = value as Node;
    if (isNode(node)) visit(node, atRoot);
    for (const [key, child] of Object.entries(node)) {
      if (key === 'type' || key === 'value' || key === 'position') continue;
      if (node.type === 'path' && key === 'steps') {
        (child as Node[]).forEach((step, i) => go(step, atRoot && i === 0));
        continue;
      }
      go(child, atRoot && keepsContext(node, key));
    }
  };
  go(root, true);
}

/** The context names the expression reads at its root (the first step of a root path). */
export function rootNames(ast: ExprNode): NameUse[] {
  const uses: NameUse[] = [];
  walk(ast as unknown as Node, (node, atRoot) => {
    // jsonata wraps every name in a path, `fields` included.
    const step = node.type === 'path' ? rootStep(node, atRoot) : undefined;
    if (step && typeof step.value === 'string') uses.push({ name: step.value, position: step.position ?? 0 });
  });
  return uses;
}

/**
 * Uses of the variables `names` (without `$`) that the expression does not bind itself
 * (`$item := ...`, a lambda parameter `function($item)`, a path's `@$item` or `#$item`): those come
 * from the caller's bindings.
 */
export function freeVariables(ast: ExprNode, names: readonly string[]): NameUse[] {
  const uses: NameUse[] = [];
  const bound = new Set<string>();
  walk(ast as unknown as Node, (node) => {
    if (node.type === 'bind' && isNode(node.lhs) && typeof node.lhs.value === 'string') bound.add(node.lhs.value);
    for (const key of ['focus', 'index']) if (typeof node[key] === 'string') bound.add(node[key]); // `@$v`, `#$i`
    if (node.type === 'lambda')
      for (const a of (node.arguments ?? []) as Node[]) if (typeof a.value === 'string') bound.add(a.value);
    if (node.type === 'variable' && typeof node.value === 'string' && names.includes(node.value))
      uses.push({ name: node.value, position: node.position ?? 0 });
  });
  return uses.filter((u) => !bound.has(u.name));
}
