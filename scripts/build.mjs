#!/usr/bin/env node
// `npm run build`: compiles the package into the git-ignored dist/. tsc emits CommonJS with
// declaration files and source maps, file for file (the workflow bundler, the example handlers and
// the CLI need the tree as it is); the ES module entry points are Node's recommended wrappers over
// that one copy (dist/esm/*.mjs with their .d.mts), so `import` and `require` share every class.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
/** The library's entry points: the ES module wrapper's name and the CommonJS module it wraps. */
const ENTRIES = [
  { esm: 'index', cjs: 'client/index' },
  { esm: 'contracts', cjs: 'contracts/index' },
  { esm: 'workflows', cjs: 'workflows/entry/index' },
];

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
console.error(`[sluice] built dist/ (CommonJS, ES module entry points ${ENTRIES.map((e) => e.esm).join(', ')})`);
