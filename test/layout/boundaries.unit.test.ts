/**
 * The layout's rules, checked on the source tree: layers that only point down, no import cycles, a
 * name shared across the workflow boundary written once (in contracts/names), and only the commands
 * that start the local platform importing it. Pure: it reads files and starts nothing.
 */
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, layerViolations, type Layer, type Refusal } from './import-graph';
import { sharedLiterals } from './shared-names';
import { relative, resolve, sep } from 'node:path';
import { code, root, sourceFiles } from './source-tree';

/**
 * The architecture, lowest layer first. A file imports from its own layer or from a lower rank:
 * never a higher one, never another layer of the same rank. (Who may import platform/ at all is
 * the platform-privacy check below.) A folder that does not exist yet holds no file and breaks nothing.
 */
const LAYERS: Layer[] = [
  { dir: 'contracts/', rank: 0, why: 'the wire and the workflow boundary: every layer speaks it, it speaks of no one' },
  {
    dir: 'common/',
    rank: 1,
    why: 'Node helpers (logger, process groups, tools) below the platform, the daemon and the CLI',
  },
  { dir: 'platform-api/', rank: 1, why: 'typed clients of the service, real or local: they know only the wire' },
  { dir: 'worker-sdk/', rank: 1, why: 'the runtime handlers run in: it knows only the wire' },
  {
    dir: 'results/',
    rank: 2,
    why: 'the results store and batch file formats, read by the library, the CLI and the daemon alike',
  },
  {
    dir: 'platform/',
    rank: 2,
    why: 'the local serverless platform: a service like the real one, owing nothing to its clients',
  },
  { dir: 'examples/', rank: 2, why: 'example handlers, built on the worker SDK' },
  { dir: 'activities/', rank: 3, why: "the orchestrator's I/O, over the platform API and the results store" },
  { dir: 'workflows/', rank: 4, why: 'deterministic orchestration: it schedules activities, so it knows their types' },
  { dir: 'config/', rank: 4, why: 'the settings the CLI shares with the daemon' },
  {
    dir: 'worker/',
    rank: 5,
    why: 'the daemon: the composition root that builds the activities and hosts the workflows',
  },
  {
    dir: 'client/',
    rank: 6,
    why: 'the library pipelines import: it starts and reads orchestrations, it never runs them',
  },
  {
    dir: 'console/',
    rank: 6.5,
    why: 'the web console: a client of sluice like the CLI (the library and the results store); the CLI and the daemon serve it',
  },
  { dir: 'client/cli/', rank: 7, why: 'the `sluice` command: the library, plus the two commands that start a daemon' },
  {
    dir: 'examples/workflows/',
    rank: 8,
    why: "a user's own workflow and worker: they use sluice as its users do (sluice/workflows, the library), above all of it",
  },
];

/** Downward imports the ranks allow and the architecture still refuses. */
const REFUSALS: Refusal[] = [
  {
    from: 'workflows/',
    to: 'activities/',
    unless: (e) => e.typeOnly,
    why: 'workflow code runs in the sandbox, where activities exist only as types',
  },
  {
    from: 'worker/',
    to: 'activities/',
    unless: (e) => /^worker\/daemon(-[\w-]+)?\.ts$/.test(e.from),
    why: 'only the composition root (worker/daemon.ts and its steps, worker/daemon-*.ts) builds the activities',
  },
  { from: 'client/', to: 'activities/', why: 'the library starts orchestrations, it never runs their I/O' },
  { from: 'client/', to: 'worker/', why: 'the library runs in a pipeline, not in the daemon' },
  { from: 'console/', to: 'activities/', why: 'the console reads orchestrations, it never runs their I/O' },
  { from: 'console/', to: 'worker/', why: 'the console is served by the daemon, it does not import it' },
  { from: 'client/cli/', to: 'activities/', why: 'the CLI starts orchestrations, it never runs their I/O' },
  {
    from: 'client/cli/',
    to: 'worker/',
    unless: (e) => e.from === 'client/cli/worker.ts' || e.from === 'client/cli/dev/stack.ts',
    why: 'only the commands that start a daemon (client/cli/worker.ts, client/cli/dev/stack.ts) import it',
  },
];

/**
 * Violations being removed right now, `file -> folder imported from`: the list only shrinks (an
 * entry that is no longer a violation fails the test, so it is removed when its move lands).
 */
const PENDING: Record<string, string> = {};

const sources = sourceFiles([...new Set(LAYERS.map((l) => l.dir.split('/')[0]!))]);
const edges = importGraph(sources, code);
/** The orchestrator's layers: the two sides of the workflow boundary, what they share, and the clients. */
const ORCHESTRATOR = ['workflows/', 'activities/', 'results/', 'config/', 'worker/', 'client/', 'common/'];

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
    const offenders = edges
      .filter((e) => !e.from.startsWith('platform/') && e.to.startsWith('platform/'))
      .filter((e) => !(allowed.has(e.from) && e.to === 'platform/index.ts'))
      .map((e) => `${e.from} imports ${e.to}`);
    expect(offenders).toEqual([]);
  });

  it('has no import cycle (type-only imports count: a cycle of types is a cycle of concepts)', () => {
    expect(importCycles(edges)).toEqual([]);
  });

  it('imports only down the layers, apart from the pending moves', () => {
    const found = layerViolations(edges, LAYERS, REFUSALS);
    expect([...found].filter(([key]) => !(key in PENDING)).map(([key, why]) => `${key}: ${why}`)).toEqual([]);
  });

  it('lists only pending moves that are still violations', () => {
    const found = layerViolations(edges, LAYERS, REFUSALS);
    const stale = Object.keys(PENDING).filter((key) => !found.has(key));
    expect(stale.map((key) => `${key}: stale pending entry, remove it`)).toEqual([]);
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

  it('finds a known cycle and known wrong imports in a small tree (the checks themselves can fail)', () => {
    const tree: Record<string, string> = {
      'common/a.ts': "import { b } from './b';",
      'common/b.ts': "import type { C } from './c';",
      'common/c/index.ts': "export { a } from '../a.ts';",
      'common/d.ts': "import { a } from './a';",
      'contracts/x.ts': "import {\n  type A,\n} from '../common/a';",
      'platform/p.ts': "import '../examples/e';",
      'examples/e.ts': "import { x } from '../contracts/x';",
      'activities/act.ts': "import { a } from '../common/a';",
      'workflows/w.ts': "import type { Act } from '../activities/act';\nconst v = require('../activities/act');",
      'workflows/types.ts': "import { type Act } from '../activities/act';",
      'worker/daemon.ts': "import { act } from '../activities/act';",
      'worker/daemon-step.ts': "import { act } from '../activities/act';",
      'worker/daemons.ts': "import { act } from '../activities/act';",
      'worker/hub.ts': "import { type Act } from '../activities/act';",
      'client/cli/worker.ts': "import { run } from '../../worker/daemon';",
      'client/cli/job.ts': "import { run } from '../../worker/daemon';\nimport { w } from '../../workflows/w';",
    };
    const graph = importGraph(Object.keys(tree), (f) => tree[f]!);
    expect(importCycles(graph)).toEqual(['common/a.ts -> common/b.ts -> common/c/index.ts -> common/a.ts']);
    expect([...layerViolations(graph, LAYERS, REFUSALS).keys()].sort()).toEqual([
      'client/cli/job.ts -> worker',
      'contracts/x.ts -> common',
      'platform/p.ts -> examples',
      'worker/daemons.ts -> activities',
      'worker/hub.ts -> activities',
      'workflows/w.ts -> activities',
    ]);
  });
});
