/**
 * The layout's rules, checked on the source tree: a name shared across the workflow boundary is
 * written once (in contracts/names), and only the commands that start the local platform import it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as names from '../../contracts/names';

const root = resolve(__dirname, '..', '..');
const SOURCE_DIRS = [
  'contracts',
  'platform',
  'platform-api',
  'worker-sdk',
  'workflows',
  'activities',
  'results',
  'worker',
  'client',
  'common',
  'examples',
];

function files(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return files(p);
    return e.name.endsWith('.ts') ? [p.split(sep).join('/')] : [];
  });
}

/** Source without comments, so prose may mention a name. */
const code = (file: string): string =>
  readFileSync(join(root, file), 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');

const sources = SOURCE_DIRS.flatMap(files);
/** The orchestrator's layers: the two sides of the workflow boundary and the clients. */
const ORCHESTRATOR = ['workflows/', 'activities/', 'results/', 'worker/', 'client/', 'common/'];

/** Every literal a shared name stands for: constant values, and the fixed head of each id builder. */
function sharedLiterals(): { name: string; literal: string; whole: boolean }[] {
  const out: { name: string; literal: string; whole: boolean }[] = [];
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

describe('the layout', () => {
  it('writes each name shared across the workflow boundary once, in contracts/names', () => {
    const literals = sharedLiterals();
    expect(literals.map((l) => l.name)).toEqual(
      expect.arrayContaining(['TASK_QUEUE', 'FailureType.JOB_EXPIRED', 'awaitActivityId', 'jobWorkflowId']),
    );
    const copies: string[] = [];
    for (const file of sources.filter((f) => ORCHESTRATOR.some((d) => f.startsWith(d)))) {
      // The HTTP client's error codes are its own names (some spell like failure types), and a CLI
      // command's word is the CLI's vocabulary (`sluice scale configure`): neither is a copy.
      const text = code(file)
        .replace(/isPlatformApiError\([^)]*\)/g, '')
        .replace(/\.command\((['"`])[a-z-]+\1\)/g, '.command()');
      for (const { name, literal, whole } of literals) {
        const esc = literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
        // A constant as a whole string ('X', "X" or `X`); an id builder's head at the start of a string or template.
        const re = whole ? new RegExp(`(['"\`])${esc}\\1`) : new RegExp(`['"\`]${esc}`);
        if (re.test(text)) copies.push(`${file}: ${JSON.stringify(literal)} (use ${name} from contracts/names)`);
      }
    }
    expect(copies).toEqual([]);
  });

  it('keeps platform/ private: outside it only the commands that start the local platform import it, through platform/index', () => {
    const allowed = new Set(['client/cli/platform.ts', 'client/cli/dev/stack.ts']);
    const offenders: string[] = [];
    for (const file of sources.filter((f) => !f.startsWith('platform/'))) {
      for (const m of code(file).matchAll(/(?:from|import|require\()\s*['"]([^'"]+)['"]/g)) {
        const spec = m[1]!;
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolve(root, file, '..', spec))
          .split(sep)
          .join('/');
        const entry = target === 'platform' || target === 'platform/index';
        if ((entry || target.startsWith('platform/')) && !(allowed.has(file) && entry))
          offenders.push(`${file} imports ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('keeps workflows/ to @temporalio/workflow, contracts/ and types from activities/', () => {
    const offenders: string[] = [];
    for (const file of sources.filter((f) => f.startsWith('workflows/'))) {
      for (const m of code(file).matchAll(/^import\s+(type\s+)?[^'"]*from\s+['"]([^'"]+)['"]/gm)) {
        const [, typeOnly, spec] = m;
        const target = spec!.startsWith('.')
          ? relative(root, resolve(root, file, '..', spec!))
              .split(sep)
              .join('/')
          : spec!;
        const ok =
          spec === '@temporalio/workflow' ||
          target.startsWith('contracts/') ||
          target.startsWith('workflows/') ||
          (typeOnly && (target === 'contracts' || target.startsWith('activities/')));
        if (!ok) offenders.push(`${file} imports ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
