#!/usr/bin/env node
// `npm run build`: compiles the package into the git-ignored dist/. tsc emits CommonJS with
// declaration files and source maps, file for file (the workflow bundler, the example handlers and
// the CLI need the tree as it is); the ES module entry points are Node's recommended wrappers over
// that one copy (dist/esm/*.mjs with their .d.mts), so `import` and `require` share every class.
// Then esbuild bundles the libraries the CLI's short commands load into dist/vendor/ (see VENDORED).
// `--if-stale`: only when a source is newer than dist/ (or dist/ is absent).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The vendor bundle's two cuts (below), each on unless its variable is 0 (to measure them). */
const MINIFY = process.env.SLUICE_VENDOR_MINIFY !== '0';
const TRIM_PROTOS = process.env.SLUICE_VENDOR_TRIM !== '0';
const dist = join(root, 'dist');
/** The library's entry points: the ES module wrapper's name and the CommonJS module it wraps. */
const ENTRIES = [
  { esm: 'index', cjs: 'client/index' },
  { esm: 'contracts', cjs: 'contracts/index' },
  { esm: 'workflows', cjs: 'workflows/entry/index' },
];

/** The file the build writes last: its time is the build's. */
const BUILT = join(dist, 'vendor', 'index.json');
/** What the build reads: a file under these newer than {@link BUILT} makes dist/ stale. */
const SOURCES = [
  ...['contracts', 'common', 'platform-api', 'worker-sdk', 'results', 'platform', 'activities', 'workflows'],
  ...['config', 'worker', 'client', 'console', 'examples', 'bin'],
  ...['package.json', 'tsconfig.build.json', 'scripts/build.mjs'],
];

/** The newest modification time under `path` (0 when absent). */
function newest(path) {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((e) => newest(join(path, e))));
}

// `--if-stale` (npm start's prestart, the stack tests' global setup): nothing to do when dist/ is newer than every
// source. A rebuild removes dist/ first, which a running `sluice` or pod of dist/'s handlers must not see.
if (process.argv.includes('--if-stale')) {
  const built = existsSync(BUILT) ? statSync(BUILT).mtimeMs : 0;
  if (built > 0 && SOURCES.every((p) => newest(join(root, p)) <= built)) {
    console.log('[sluice] dist/ is up to date');
    process.exit(0);
  }
}

rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });

mkdirSync(join(dist, 'esm'), { recursive: true });
const load = createRequire(join(dist, 'package.json'));
for (const { esm, cjs } of ENTRIES) {
  const names = Object.keys(load(`./${cjs}.js`)).filter((n) => n !== 'default' && n !== '__esModule');
  const from = `../${cjs}.js`;
  const lines = [
    `// ES module entry point of sluice's ${cjs}: the CommonJS build, re-exported by name.`,
    `import cjs from '${from}';`,
    ...names.map((n) => `export const ${n} = cjs.${n};`),
    '',
  ];
  writeFileSync(join(dist, 'esm', `${esm}.mjs`), lines.join('\n'));
  writeFileSync(join(dist, 'esm', `${esm}.d.mts`), `export * from '${from}';\n`);
}
await vendor();
console.log(`[sluice] built dist/ (CommonJS, ES module entry points ${ENTRIES.map((e) => e.esm).join(', ')})`);

/**
 * The packages a short command (`status`, `batch list`, ...) loads, with the deep paths they
 * require of each other: about 440 modules read, resolved and compiled one by one, bundled here
 * into one file (issue 23: resolving and compiling them was a third of such a command). Only
 * bin/sluice.cjs uses it, for the commands that do not run a worker (dist/vendor/index.json lists
 * what it redirects); the library and the daemon load the packages themselves.
 */
async function vendor() {
  const common = [
    'converter/payload-search-attributes',
    'encoding',
    'errors',
    'interceptors',
    'interfaces',
    'internal-non-workflow',
    'internal-non-workflow/codec-helpers',
    'internal-workflow',
    'internal-workflow/objects-helpers',
    'time',
    'type-helpers',
    'workflow-handle',
    'workflow-options',
  ];
  const VENDORED = [
    '@temporalio/client',
    '@temporalio/common',
    '@temporalio/envconfig',
    '@temporalio/proto',
    'zod',
    ...common.map((p) => `@temporalio/common/lib/${p}`),
  ];
  const dir = join(dist, 'vendor');
  mkdirSync(dir, { recursive: true });
  // Getters: a package is initialised at its first require, as without the bundle (zod only when used).
  const entry = [
    '// The packages of dist/vendor/index.json, each initialised at its first use.',
    ...VENDORED.map(
      (name) =>
        `Object.defineProperty(exports, ${JSON.stringify(name)}, { enumerable: true, get: () => require(${JSON.stringify(name)}) });`,
    ),
    '',
  ].join('\n');
  await build({
    stdin: { contents: entry, resolveDir: root, sourcefile: 'vendor-entry.js', loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile: join(dir, 'cli.js'),
    // Half the bytes to read and parse at each start (names kept: the map gives the sources' lines).
    minifyWhitespace: MINIFY,
    minifySyntax: MINIFY,
    plugins: TRIM_PROTOS ? [clientProtos()] : [],
    sourcemap: true,
    sourcesContent: false,
    legalComments: 'linked',
    logLevel: 'warning',
  });
  const shims = {};
  for (const [i, name] of VENDORED.entries()) {
    writeFileSync(join(dir, `${i}.js`), `module.exports = require('./cli.js')[${JSON.stringify(name)}];\n`);
    shims[name] = `${i}.js`;
  }
  writeFileSync(join(dir, 'index.json'), `${JSON.stringify(shims, null, 2)}\n`);
}

/**
 * The Temporal protobuf root in the bundle, for a client: `@temporalio/proto`'s JSON module builds
 * every message type at its first require, the Cloud API's (`temporal.api.cloud`, 29 % of them)
 * and the worker's core SDK types (`coresdk`) included, which a client never uses. Here it is
 * built without those two, and from `JSON.parse` of one string rather than a 1.4 MB object literal
 * (much cheaper for V8 to parse). The build fails if a type left refers to one taken out.
 */
function clientProtos() {
  return {
    name: 'client-protos',
    setup(b) {
      b.onLoad({ filter: /[\\/]@temporalio[\\/]proto[\\/]protos[\\/]json-module\.js$/ }, ({ path }) => {
        const json = protoJson(path);
        delete json.coresdk;
        delete json.temporal.nested.api.nested.cloud;
        // Throws on a type that refers to one taken out.
        new (createRequire(path)('protobufjs/light').Root)().addJSON(json).resolveAll();
        const contents = [
          "'use strict';",
          "var $protobuf = require('protobufjs/light');",
          "var $root = $protobuf.roots['__temporal'] || ($protobuf.roots['__temporal'] = new $protobuf.Root());",
          `module.exports = $root.addJSON(JSON.parse(${JSON.stringify(JSON.stringify(json))}));`,
          '',
        ].join('\n');
        return { contents, loader: 'js', resolveDir: dirname(path) };
      });
    },
  };
}

/** The JSON that @temporalio/proto's JSON module at `path` gives `Root#addJSON` (run with a stand-in protobufjs). */
function protoJson(path) {
  let json;
  const Root = class {
    addJSON(j) {
      json = j;
      return this;
    }
  };
  const module = { exports: {} };
  new Function('require', 'module', 'exports', readFileSync(path, 'utf8'))(
    () => ({ roots: {}, Root }),
    module,
    module.exports,
  );
  if (!json?.temporal?.nested?.api?.nested?.cloud || !json.coresdk)
    throw new Error(`${path}: not the JSON module expected (scripts/build.mjs)`);
  return json;
}
