#!/usr/bin/env node
// The `sluice` command: the compiled CLI (dist/, from `npm run build`); in a checkout without
// dist/, or with SLUICE_FROM_SOURCE=1, the TypeScript sources through tsx (see cli() below).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// The AWS SDK (S3 stores) prints an 8-line notice on Node 20 at its first client; the supported
// Node versions are stated in package.json and docs/results-store.md instead of on every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const compiled = join(__dirname, '..', 'dist', 'client', 'cli', 'main.js');
const fromSource = process.env.SLUICE_FROM_SOURCE === '1' || !existsSync(compiled);
const command = process.argv[2];

// The commands that run a worker or a server: their start is not a user's wait, and the worker's
// packages (and OpenTelemetry's interceptors) require the Temporal client's internals by path.
const LONG_RUNNING = new Set(['worker', 'dev', 'demo', 'platform', 'console', 'compose']);
// The version and the help load commander and little else: a cache would cost them more than it saves.
const QUICK = new Set([undefined, '--version', '-V', '--help', '-h', 'help']);
// The long-running commands that keep the code cache of their start (flushCodeCache once running).
const FLUSHED = new Set(['worker', 'platform']);

// A short command's WebAssembly (undici's HTTP parser) stays with V8's baseline compiler: its
// optimizing tier-up ran in the background after the work was done, 200-350 ms of CPU that the
// exit waited for (bench/README.md, "CLI").
if (!QUICK.has(command) && !LONG_RUNNING.has(command)) require('node:v8').setFlagsFromString('--liftoff-only');

// The compiled code of the modules a command loads is kept in sluice's cache dir (SLUICE_CACHE_DIR,
// else $XDG_CACHE_HOME/sluice, else ~/.cache/sluice): the next command skips compiling them. Node
// >= 22.1 does it itself; on Node 20, dist/common/code-cache.js keeps V8's code cache: a short
// command's at its exit, the worker's and the platform's once they run (a restart after a crash
// starts sooner; what they load later is not kept). NODE_DISABLE_COMPILE_CACHE=1 turns both off.
function compileCache() {
  if (fromSource || QUICK.has(command) || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const dir = require('../dist/common/cache-dir.js').cacheDir();
    const { enableCompileCache } = require('node:module');
    if (enableCompileCache) enableCompileCache(join(dir, 'compile'));
    else if (!LONG_RUNNING.has(command)) require('../dist/common/code-cache.js').enableCodeCache(dir);
    else if (FLUSHED.has(command)) require('../dist/common/code-cache.js').enableCodeCache(dir, { write: 'flush' });
  } catch {
    // no cache: the command compiles its modules, as without one
  }
}
compileCache();

// The other commands load Temporal's client, its protobufs and zod from one file bundled by
// `npm run build` (dist/vendor/: about 440 modules resolved and compiled as one, issue 23), when
// no tracing is configured (its interceptors share the client's internals by path too).
function vendored() {
  if (fromSource || QUICK.has(command) || LONG_RUNNING.has(command) || process.env.SLUICE_VENDOR === '0') return;
  try {
    const { tracesUrl, otlpEndpoints } = require('../dist/common/traces-url.js');
    if (tracesUrl(otlpEndpoints(process.env))) return;
    const shims = require('../dist/vendor/index.json');
    const dir = join(__dirname, '..', 'dist', 'vendor');
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      const shim = Object.hasOwn(shims, request) ? shims[request] : undefined;
      return shim ? join(dir, shim) : resolve.call(this, request, ...rest);
    };
  } catch {
    // no bundle (an older build): the packages load from node_modules
  }
}
vendored();

/**
 * The CLI's module: dist/'s, or the sources through tsx. Those need both of tsx's hooks: the
 * CommonJS one for require() and the ES module one for the commands' lazy import('./x') (a
 * dynamic import resolves through Node's ES module loader, which finds no extensionless `.ts`).
 * tsx's documented `register()` of each; the ES module API from its .mjs build (its CommonJS
 * build of tsx 4.23 resolves its own hooks' path wrongly).
 */
async function cli() {
  if (!fromSource) return require(compiled);
  let esm;
  try {
    esm = await import('tsx/esm/api');
  } catch {
    throw new Error('no compiled CLI (dist/) and no tsx to run the sources: run `npm run build` (after `npm install`)');
  }
  esm.register();
  require('tsx/cjs/api').register();
  return require('../client/cli/main.ts');
}

cli()
  .then((m) => m.main(process.argv.slice(2)))
  .then((code) => {
    if (typeof code === 'number') process.exitCode = code;
  })
  .catch((err) => {
    console.error(`sluice: ${err && err.message ? err.message : err}`);
    process.exitCode = 1;
  })
  .finally(() => {
    // A library handle (a keep-alive socket, a native runtime) must not keep a finished command alive.
    setTimeout(() => process.exit(), 2000).unref();
  });
