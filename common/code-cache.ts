/**
 * V8's code cache for the CommonJS modules a short command loads, on Node versions without
 * `module.enableCompileCache` (Node 20): compiling sluice's, Temporal's and zod's modules is about a
 * fifth of a `sluice status` (issue 23). One file in the cache dir holds each module's cached data,
 * by its path, with a hash of its text: a changed module is compiled afresh (its entry replaced), an
 * unreadable cache file is ignored, and the file is rewritten (atomically) only when a module was
 * compiled without cached data. A file that would grow over its bound keeps the modules of the command
 * writing it only (the others are compiled and added again by the commands that use them). Node >= 22.1
 * does this itself (bin/sluice.cjs uses it there).
 * A long-running command (`sluice worker`, `sluice platform`) keeps the cache of what it loaded to
 * start ({@link flushCodeCache} once it runs), not at its exit: a crash (SIGKILL) never reaches an
 * exit hook, and the modules it loads later are compiled by Node, not kept at every exit.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { dirname, join } from 'node:path';
import { Script, constants } from 'node:vm';

/** The cache file's bound: above it, it keeps this command's modules only (what many builds or versions accumulate). */
const MAX_BYTES = 64 * 1024 * 1024;

/** What the cache did in this process (tests; `SLUICE_CODE_CACHE_STATS=1` prints it at exit). */
export interface CodeCacheStats {
  /** Modules compiled from their cached data. */
  hits: number;
  /** Modules compiled without (none stored, or V8 refused it: another V8 or other flags). */
  misses: number;
  /** Whether the cache file was rewritten at exit. */
  written: boolean;
}

interface CjsModule {
  exports: unknown;
  require(id: string): unknown;
}
type Compile = (this: CjsModule, content: string, filename: string) => unknown;
type ModuleInternals = typeof Module & {
  prototype: { _compile: Compile };
  _resolveFilename(request: string, parent: CjsModule, isMain: boolean, options?: unknown): string;
  _extensions: unknown;
  _cache: unknown;
  wrap(content: string): string;
};

const stats: CodeCacheStats = { hits: 0, misses: 0, written: false };
export const codeCacheStats = (): CodeCacheStats => ({ ...stats });

/** The cache file of this Node version: V8's cached data is valid for the V8 that made it only. */
export const codeCacheFile = (dir: string): string => join(dir, `code-cache-${process.version}-${process.arch}.bin`);

/** When the cache file is rewritten: at the process's exit, or when {@link flushCodeCache} is called. */
export interface CodeCacheOptions {
  /** 'exit' (the default: a short command), or 'flush' (a long-running one, once it runs). @default 'exit' */
  write?: 'exit' | 'flush';
}

/** The pending write of a cache enabled with `write: 'flush'` (undefined: none, or done). */
let pending: (() => void) | undefined;

/**
 * Keeps the cached data of the modules compiled so far (when any was compiled without) and stops
 * the hook: the modules loaded from now on are compiled by Node. Once; a no-op without a cache
 * enabled with `write: 'flush'` (Node >= 22.1, the sources through tsx, a short command).
 */
export function flushCodeCache(): void {
  const write = pending;
  pending = undefined;
  write?.();
}

/** A module's cached data, with the hash of the text it was made from. */
interface Entry {
  hash: string;
  data: Buffer;
}

/** The file: uint32 count, then per entry uint32 key length, key (utf8 `path\0hash`), uint32 data length, data. */
function read(file: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch {
    return entries;
  }
  try {
    let at = 4;
    for (let n = buf.readUInt32LE(0); n > 0; n--) {
      const keyEnd = at + 4 + buf.readUInt32LE(at);
      const key = buf.toString('utf8', at + 4, keyEnd);
      const dataEnd = keyEnd + 4 + buf.readUInt32LE(keyEnd);
      if (dataEnd > buf.length) throw new RangeError('truncated');
      const [path = '', hash = ''] = key.split('\0');
      entries.set(path, { hash, data: buf.subarray(keyEnd + 4, dataEnd) });
      at = dataEnd;
    }
  } catch {
    entries.clear(); // a torn or foreign file: start afresh
  }
  return entries;
}

function serialized(entries: Map<string, Entry>): Buffer {
  const parts: Buffer[] = [u32(entries.size)];
  for (const [path, { hash, data }] of entries) {
    const k = Buffer.from(`${path}\0${hash}`, 'utf8');
    parts.push(u32(k.length), k, u32(data.length), data);
  }
  return Buffer.concat(parts);
}

/** Writes the entries; over {@link MAX_BYTES}, those of the modules this command loaded (`used`) only. */
function write(file: string, entries: Map<string, Entry>, used: ReadonlySet<string>): void {
  let all = serialized(entries);
  if (all.length > MAX_BYTES) all = serialized(new Map([...entries].filter(([path]) => used.has(path))));
  if (all.length > MAX_BYTES) return;
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, all);
  renameSync(tmp, file);
  stats.written = true;
}

function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}

/** A module's `require`, as Node makes it. */
function requireOf(M: ModuleInternals, mod: CjsModule): NodeJS.Require {
  const req = ((id: string) => mod.require(id)) as NodeJS.Require;
  req.resolve = ((request: string, options?: unknown) =>
    M._resolveFilename(request, mod, false, options)) as NodeJS.RequireResolve;
  req.main = require.main;
  req.extensions = M._extensions as NodeJS.Require['extensions'];
  req.cache = M._cache as NodeJS.Require['cache'];
  return req;
}

/**
 * Compiles every CommonJS module loaded from now on through V8's code cache kept in `dir`. Errors
 * of the cache itself never fail a command: a module the hook cannot compile is compiled by Node.
 */
export function enableCodeCache(dir: string, opts: CodeCacheOptions = {}): void {
  const M = Module as ModuleInternals;
  const file = codeCacheFile(dir);
  const entries = read(file);
  const fresh: [string, string, Script][] = [];
  const used = new Set<string>();
  const original = M.prototype._compile;
  let on = true;
  const hook = function (this: CjsModule, content: string, filename: string) {
    // A hashbang (an entry script) or a syntax error: Node's own compile handles and reports them.
    if (!on || content.startsWith('#!')) return original.call(this, content, filename);
    const hash = createHash('sha1').update(content).digest('base64');
    used.add(filename);
    const entry = entries.get(filename);
    const cachedData = entry?.hash === hash ? entry.data : undefined;
    let script: Script;
    try {
      script = new Script(M.wrap(content), {
        filename,
        ...(cachedData ? { cachedData } : {}),
        importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
      });
    } catch {
      return original.call(this, content, filename);
    }
    if (cachedData && !script.cachedDataRejected) stats.hits++;
    else {
      stats.misses++;
      fresh.push([filename, hash, script]);
    }
    const fn = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
    return fn.call(this.exports, this.exports, requireOf(M, this), this, filename, dirname(filename));
  };
  M.prototype._compile = hook;
  const save = (): void => {
    try {
      // After the command ran (or started): the data holds the functions compiled lazily since, not only the top level.
      for (const [path, hash, script] of fresh) entries.set(path, { hash, data: script.createCachedData() });
      if (fresh.length > 0) write(file, entries, used);
    } catch {
      // a read-only or full disk: the next command compiles again
    }
    fresh.length = 0;
  };
  if (opts.write === 'flush')
    pending = () => {
      on = false;
      if (M.prototype._compile === hook) M.prototype._compile = original;
      save();
    };
  else process.once('exit', save);
  if (process.env.SLUICE_CODE_CACHE_STATS === '1')
    process.once('exit', () => process.stderr.write(`sluice-code-cache ${JSON.stringify(stats)}\n`));
}
