#!/usr/bin/env node
// The `sluice` command: the compiled CLI (dist/, from `npm run build`); in a checkout without
// dist/, or with SLUICE_FROM_SOURCE=1, the TypeScript sources through tsx's loader.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// The AWS SDK (S3 stores) prints an 8-line notice on Node 20 at its first client; the supported
// Node versions are stated in package.json and docs/results-store.md instead of on every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// Node >= 22.1 keeps the compiled code of the modules a command loads (in the OS temp dir): the next
// command skips compiling them. Node 20 has no such cache; the call is skipped there.
require('node:module').enableCompileCache?.();

function cli() {
  const compiled = join(__dirname, '..', 'dist', 'client', 'cli', 'main.js');
  if (process.env.SLUICE_FROM_SOURCE !== '1' && existsSync(compiled)) return require(compiled);
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
