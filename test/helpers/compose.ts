/** Reads docker-compose.yml as `docker compose` does, without a Docker engine: YAML (anchors, merge keys), `.env`, interpolation. */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The parts of a compose file the tests read. */
export interface ComposeFile {
  services: Record<
    string,
    {
      image?: string;
      build?: string;
      command?: string[];
      entrypoint?: string[];
      environment?: Record<string, string>;
      depends_on?: Record<string, { condition?: string }>;
      ports?: string[];
      expose?: string[];
      volumes?: string[];
      container_name?: string;
    }
  >;
  volumes: Record<string, unknown>;
}

/** The compose file as written: aliases and merge keys resolved, `${...}` not interpolated. */
export const readCompose = (file: string): ComposeFile =>
  parse(readFileSync(file, 'utf8'), { merge: true }) as ComposeFile;

/** One `${...}` (or `$NAME`) of a compose file: the variable, its operator (`:?`, `:-`, ... or none) and operand. */
export interface ComposeReference {
  text: string;
  name: string;
  op: '' | ':-' | '-' | ':?' | '?' | ':+' | '+';
  operand: string;
}

const REFERENCE = /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;

/** Every variable reference in the values of a compose file as parsed (comments hold none; `$$` is a literal `$`). */
export function composeReferences(tree: unknown): ComposeReference[] {
  const strings: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') strings.push(node);
    else if (node && typeof node === 'object') Object.values(node).forEach(walk);
  };
  walk(tree);
  return [...strings.join('\n').matchAll(REFERENCE)]
    .filter((m) => m[0] !== '$$')
    .map((m) => ({
      text: m[0],
      name: m[1] ?? m[4]!,
      op: (m[2] ?? '') as ComposeReference['op'],
      operand: m[3] ?? '',
    }));
}

/** A required variable without a value: what compose says, and refuses to start with. */
export class MissingVariable extends Error {}

/** Interpolates one value as compose does (nested references are not supported: none are used). */
export function interpolate(value: string, env: Record<string, string | undefined>): string {
  return value.replace(REFERENCE, (whole: string, braced?: string, op?: string, operand = '', bare?: string) => {
    if (whole === '$$') return '$';
    const name = (braced ?? bare)!;
    const v = env[name];
    const set = v !== undefined;
    const nonEmpty = set && v !== '';
    switch (op) {
      case ':-':
        return nonEmpty ? v : operand;
      case '-':
        return set ? v : operand;
      case ':?':
      case '?':
        if (op === ':?' ? nonEmpty : set) return v;
        throw new MissingVariable(`required variable ${name} is missing a value: ${operand}`);
      case ':+':
        return nonEmpty ? operand : '';
      case '+':
        return set ? operand : '';
      default:
        return v ?? '';
    }
  });
}

/** Every string of `tree` interpolated (every missing required variable reported at once). */
export function interpolateTree<T>(tree: T, env: Record<string, string | undefined>): T {
  const missing: string[] = [];
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      try {
        return interpolate(node, env);
      } catch (err) {
        if (!(err instanceof MissingVariable)) throw err;
        missing.push(err.message);
        return node;
      }
    }
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  const out = walk(tree) as T;
  if (missing.length > 0) throw new MissingVariable([...new Set(missing)].join('\n'));
  return out;
}

/** The assignments of a `.env` file (`NAME=value` lines; comments and blank lines skipped). */
export function readDotEnv(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line.trim());
    if (m) vars[m[1]!] = m[2]!;
  }
  return vars;
}
