/**
 * How the compiled `sluice` loads its code (issue 23: a short command answers in <= 400 ms of its
 * own): V8's code cache on Node 20 (common/code-cache.ts, in the cache dir) and the bundle of the
 * libraries the short commands load (dist/vendor/, from `npm run build`); the sources through tsx
 * (SLUICE_FROM_SOURCE=1, or no dist/); the bundle's trimmed protobuf root. Real processes.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { codeCacheFile } from '../../common/code-cache';
import { bin, cleanEnv } from './run-sluice';

const root = join(__dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'sluice-load-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `node ...args`, to its end. */
function node(args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, args, { env, timeout: 60_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** The code cache's counts, printed at exit with SLUICE_CODE_CACHE_STATS=1. */
const stats = (stderr: string) =>
  JSON.parse(
    stderr
      .split('\n')
      .find((l) => l.startsWith('sluice-code-cache '))!
      .slice(18),
  ) as {
    hits: number;
    misses: number;
    written: boolean;
  };

describe.skipIf('enableCompileCache' in Module)('the code cache (Node 20)', () => {
  const cache = join(dir, 'cache');
  const mod = join(dir, 'answer.js');
  const program = `require(${JSON.stringify(join(root, 'dist', 'common', 'code-cache.js'))}).enableCodeCache(${JSON.stringify(cache)}); console.log(require(${JSON.stringify(mod)}).answer());`;
  const env = cleanEnv({ SLUICE_CODE_CACHE_STATS: '1' });

  it('compiles a module from its cached data the next time, and a changed module afresh', async () => {
    writeFileSync(mod, 'exports.answer = () => 41;\n');
    const first = await node(['-e', program], env);
    expect(first.stdout.trim()).toBe('41');
    expect(stats(first.stderr)).toMatchObject({ hits: 0, written: true });
    expect(readdirSync(cache).map((f) => join(cache, f))).toEqual([codeCacheFile(cache)]);

    const second = await node(['-e', program], env);
    expect(second.stdout.trim()).toBe('41');
    expect(stats(second.stderr)).toMatchObject({ hits: 1, misses: 0, written: false });

    writeFileSync(mod, 'exports.answer = () => 42;\n');
    const changed = await node(['-e', program], env);
    expect(changed.stdout.trim()).toBe('42');
    expect(stats(changed.stderr)).toMatchObject({ hits: 0, misses: 1, written: true });
  });

  it('keeps only the modules of the command writing it when the file would outgrow its bound (64 MB)', async () => {
    // Another build's module, 65 MB of cached data: a file at its bound, as many builds leave it.
    const key = Buffer.from(`${join(dir, 'gone.js')}\0hash`);
    const u32 = (n: number) => {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(n);
      return b;
    };
    writeFileSync(
      codeCacheFile(cache),
      Buffer.concat([u32(1), u32(key.length), key, u32(65 << 20), Buffer.alloc(65 << 20)]),
    );
    writeFileSync(mod, 'exports.answer = () => 44;\n');
    const full = await node(['-e', program], env);
    expect(full.stdout.trim()).toBe('44');
    expect(stats(full.stderr)).toMatchObject({ hits: 0, written: true });
    expect(statSync(codeCacheFile(cache)).size).toBeLessThan(1 << 20);
    const next = await node(['-e', program], env);
    expect(stats(next.stderr)).toMatchObject({ hits: 1, misses: 0, written: false });
  });

  it("keeps a long-running command's cache once it runs (a SIGKILL later loses nothing), not what it loads after", async () => {
    const flushed = join(dir, 'flushed');
    const later = join(dir, 'later.js');
    writeFileSync(mod, 'exports.answer = () => 44;\n');
    writeFileSync(later, 'exports.answer = () => 45;\n');
    const cc = JSON.stringify(join(root, 'dist', 'common', 'code-cache.js'));
    const running = `const c = require(${cc}); c.enableCodeCache(${JSON.stringify(flushed)}, { write: 'flush' }); console.log(require(${JSON.stringify(mod)}).answer()); c.flushCodeCache(); console.log(require(${JSON.stringify(later)}).answer()); if (process.env.CRASH) process.kill(process.pid, 'SIGKILL');`;
    const crashed = await node(['-e', running], { ...env, CRASH: '1' });
    expect(crashed.stdout.trim().split('\n')).toEqual(['44', '45']);
    expect(readdirSync(flushed)).toEqual([basename(codeCacheFile(flushed))]);

    const restarted = await node(['-e', running], env);
    expect(restarted.stdout.trim().split('\n')).toEqual(['44', '45']);
    expect(stats(restarted.stderr)).toEqual({ hits: 1, misses: 0, written: false });
  });

  it('ignores a damaged cache file and reports a syntax error as Node does', async () => {
    writeFileSync(codeCacheFile(cache), 'not a cache');
    writeFileSync(mod, 'exports.answer = () => 43;\n');
    const damaged = await node(['-e', program], env);
    expect(damaged.stdout.trim()).toBe('43');
    expect(stats(damaged.stderr)).toMatchObject({ hits: 0, written: true });

    writeFileSync(mod, 'exports.answer = () => {;\n');
    const broken = await node(['-e', program], env);
    expect(broken.code).not.toBe(0);
    expect(broken.stderr).toContain('SyntaxError');
    expect(broken.stderr).toContain(mod);
  });
});

describe('the short commands', () => {
  // Prints, at exit, where the Temporal client came from.
  const probe = join(dir, 'probe.cjs');
  writeFileSync(
    probe,
    "process.on('exit', () => process.stderr.write('client-from ' + Object.keys(require.cache).filter((f) => /temporalio.client|vendor.cli/.test(f)).join(' ') + '\\n'));\n",
  );
  const env = cleanEnv({ TEMPORAL_ADDRESS: '127.0.0.1:1', SLUICE_CACHE_DIR: join(dir, 'cli-cache') });

  it('load the Temporal client from the bundle; the worker and OpenTelemetry tracing from node_modules', async () => {
    const status = await node(['-r', probe, bin, 'status', 'job/none'], env);
    expect(status.stderr).toContain('cannot reach Temporal at 127.0.0.1:1');
    const from = (stderr: string) => stderr.split('\n').find((l) => l.startsWith('client-from '))!;
    expect(from(status.stderr)).toContain(join('dist', 'vendor', 'cli.js'));
    expect(from(status.stderr)).not.toContain('node_modules');

    const traced = await node(['-r', probe, bin, 'status', 'job/none'], {
      ...env,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1',
    });
    expect(traced.stderr).toContain('cannot reach Temporal at 127.0.0.1:1');
    expect(from(traced.stderr)).toContain(join('node_modules', '@temporalio', 'client'));
    expect(from(traced.stderr)).not.toContain('vendor');

    const help = await node(['-r', probe, bin, 'worker', '--help'], env);
    expect(help.code).toBe(0);
    expect(from(help.stderr)).not.toContain('vendor');
  }, 180_000);
});

describe("the bundle's protobuf root", () => {
  it("has the client's services and message types, not the Cloud API's or the core SDK's", async () => {
    const shims = JSON.parse(readFileSync(join(root, 'dist', 'vendor', 'index.json'), 'utf8')) as Record<
      string,
      string
    >;
    const program = `const root = require(${JSON.stringify(join(root, 'dist', 'vendor', shims['@temporalio/proto']!))});
      const has = (n) => { try { return Boolean(root.lookup(n)); } catch { return false; } };
      console.log(JSON.stringify(['temporal.api.workflowservice.v1.WorkflowService', 'temporal.api.workflowservice.v1.StartWorkflowExecutionRequest', 'temporal.api.history.v1.HistoryEvent', 'grpc.health.v1.Health', 'temporal.api.cloud', 'coresdk'].map(has)));
      console.log(root.temporal.api.workflowservice.v1.StartWorkflowExecutionRequest.encode({ workflowId: 'w' }).finish().length);`;
    const r = await node(['-e', program], cleanEnv());
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual([JSON.stringify([true, true, true, true, false, false]), '3']);
  }, 180_000);
});

describe('the sources through tsx (SLUICE_FROM_SOURCE=1)', () => {
  const env = cleanEnv({ SLUICE_FROM_SOURCE: '1', TEMPORAL_ADDRESS: '127.0.0.1:1' });

  it("load the commands' modules lazily, and their errors exit as from dist/", async () => {
    // `batch` is a lazy group (main.ts imports its definitions), `status` a lazy action (job/actions).
    const help = await node([bin, 'batch', '--help'], env);
    expect(help.stderr).toBe('');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: sluice batch');
    const status = await node([bin, 'status', 'job/none'], env);
    expect(status.stderr).toContain('sluice: cannot reach Temporal at 127.0.0.1:1');
    expect(status.code).toBe(1);
    // A usage error thrown by a lazily loaded module is one class with main.ts's: exit 2, no stack.
    const missing = await node([bin, 'batch', 'start', join(dir, 'none.jsonl'), '--endpoint', 'e'], env);
    expect(missing.stderr.trim()).toBe(`sluice: cannot read input file ${join(dir, 'none.jsonl')}: no such file`);
    expect(missing.code).toBe(2);
  }, 180_000);

  it('without dist/ or tsx, tell the user to build', async () => {
    const alone = join(dir, 'no-build');
    mkdirSync(join(alone, 'bin'), { recursive: true });
    copyFileSync(bin, join(alone, 'bin', 'sluice.cjs'));
    const r = await node([join(alone, 'bin', 'sluice.cjs'), '--version'], cleanEnv());
    expect(r.stderr.trim()).toBe(
      'sluice: no compiled CLI (dist/) and no tsx to run the sources: run `npm run build` (after `npm install`)',
    );
    expect(r.code).toBe(1);
  }, 180_000);
});
