/**
 * The stack tier's global setup: the `sluice` command the tests spawn runs the compiled dist/
 * (bin/sluice.cjs), so dist/ is rebuilt first whenever a source file is newer than it. `npm test`
 * builds before it runs (pretest); this keeps a targeted `npx vitest run test/...` after an edit from
 * testing yesterday's build.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const SOURCES = ['contracts', 'common', 'platform-api', 'worker-sdk', 'results', 'platform', 'activities', 'workflows'];
const MORE = [
  'config',
  'worker',
  'client',
  'console',
  'examples',
  'bin',
  'package.json',
  'tsconfig.build.json',
  'scripts/build.mjs',
];
/** A file the build writes last, so its time is the build's. */
const BUILT = join(root, 'dist', 'esm', 'contracts.mjs');

function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((e) => newest(join(path, e))));
}

export default function setup(): void {
  const built = existsSync(BUILT) ? statSync(BUILT).mtimeMs : 0;
  if ([...SOURCES, ...MORE].some((p) => newest(join(root, p)) > built)) {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  }
}
