#!/usr/bin/env node
// The `sluice` command: the compiled CLI (dist/, from `npm run build`); in a checkout without
// dist/, or with SLUICE_FROM_SOURCE=1, the TypeScript sources through tsx's loader.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// The AWS SDK (S3 stores) prints an 8-line notice on Node 20 at its first client; the supported
// Node versions are stated in package.json and docs/results-store.md instead of on every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const compiled = join(__dirname, '..', 'dist', 'client', 'cli', 'main.js');
const fromSource = process.env.SLUICE_FROM_SOURCE === '1' || !existsSync(compiled);

// The compiled code of the modules a command loads is kept in sluice's cache dir (SLUICE_CACHE_DIR,
// else $XDG_CACHE_HOME/sluice, else ~/.cache/sluice): the next command skips compiling them. Node
// >= 22.1 does it itself; on Node 20, dist/common/code-cache.js keeps V8's code cache.
// NODE_DISABLE_COMPILE_CACHE=1 turns both off.
function compileCache() {
  if (fromSource || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  try {
    const dir = require('../dist/common/cache-dir.js').cacheDir();
    const { enableCompileCache } = require('node:module');
    if (enableCompileCache) enableCompileCache(join(dir, 'compile'));
    else require('../dist/common/code-cache.js').enableCodeCache(dir);
  } catch {
    // no cache: the command compiles its modules, as without one
  }
}
compileCache();

function cli() {
  if (!fromSource) return require(compiled);
  require('tsx/cjs');
  return require('../client/cli/main.ts');
}

cli()
  .main(process.argv.slice(2))
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
