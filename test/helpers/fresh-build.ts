/**
 * The stack tier's global setup: the `sluice` command the tests spawn runs the compiled dist/
 * (bin/sluice.cjs), so dist/ is rebuilt first whenever a source file is newer than it
 * (`scripts/build.mjs --if-stale` decides). `npm test` builds before it runs (pretest); this keeps a
 * targeted `npx vitest run test/...` after an edit from testing yesterday's build.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

export default function setup(): void {
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--if-stale'], { cwd: root, stdio: 'inherit' });
}
