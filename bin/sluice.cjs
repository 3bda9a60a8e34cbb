#!/usr/bin/env node
// The `sluice` command: TypeScript sources run through tsx's loader, so `npm install` is the only build step.
require('tsx/cjs');
// The AWS SDK (S3 stores) prints an 8-line notice on Node 20 at its first client; the supported
// Node versions are stated in package.json and docs/results-store.md instead of on every command.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
require('../client/cli/main.ts')
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
