/**
 * Two tiers of tests (`npx vitest run --project unit` or `--project stack` picks one; `vitest run` runs both):
 *
 * - **unit**: files named `*.unit.test.ts`. They test pure modules (policies, ledgers, plans, parsers,
 *   formatting, the layout's rules) and start no server, no process and no Temporal: `npm run test:unit`
 *   runs them in well under a minute on 2 cores. test/helpers/unit-guard.ts makes starting a process
 *   (child_process) or listening on a port throw in them (Temporal's test servers start from the SDK's
 *   native core, outside the guard: by convention only).
 * - **stack**: every other `*.test.ts`: real servers on port 0, real processes, a real Temporal server.
 *   A test waits for the state it asserts (a status, a decision in a log), with generous bounds, never for
 *   a time that happens to suffice on a quiet machine.
 *
 * A test file that needs a server or a process is not a unit test: name it `*.test.ts`.
 */
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/helpers/longest-first';

const UNIT = 'test/**/*.unit.test.ts';

/**
 * Test files run at once. Two keep a 2-core machine busy: the suite's last green fresh-clone runs used two; three
 * raised the load to 12-16 without a shorter run in this session's one comparison.
 * @default 2 (`SLUICE_TEST_FORKS` sets it: 1 for a machine with one core, or to read one file's logs)
 */
const forks = Math.max(1, Number(process.env.SLUICE_TEST_FORKS ?? 2) || 2);

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Real servers and real processes: keep files parallel but bounded on 2 cores.
    pool: 'forks',
    // A fork runs stack file after stack file with the modules it loaded (isolate: false): a fresh process per file
    // paid its module loading again, about 1.7 s of CPU per stack file on 2 cores (bench/README.md "Test suite").
    // Each file still starts its own servers and stops them (and every process) in its hooks, and restores what it
    // changed in process.env. SLUICE_TEST_ISOLATE=1 gives each file a fresh process again (to tell whether a failure
    // comes from a file run before it in the same fork). The unit tier runs in threads that keep their modules too.
    poolOptions: {
      forks: { maxForks: forks, minForks: 1, isolate: process.env.SLUICE_TEST_ISOLATE === '1' },
      threads: { maxThreads: forks, minThreads: 1, isolate: false },
    },
    reporters: ['default'],
    // The long files first, so the forks end together (test/helpers/longest-first.ts).
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: [UNIT],
          setupFiles: ['test/helpers/unit-guard.ts'],
          testTimeout: 10_000,
          // Pure modules: one thread runs file after file with the modules it loaded (a fresh process per file
          // tripled the tier's time); a file leaves no state behind.
          pool: 'threads',
        },
      },
      {
        extends: true,
        // Generous: a test waits for states with bounds of a minute; a loaded machine makes it slower, not red.
        test: {
          name: 'stack',
          include: ['test/**/*.test.ts'],
          exclude: [UNIT],
          testTimeout: 180_000,
          // The spawned `sluice` runs dist/: rebuilt first when a source is newer.
          globalSetup: ['test/helpers/fresh-build.ts'],
          // So the example handlers' pods run dist/'s compiled handlers, not the sources through tsx
          // (platform/control-plane/seed.ts): a third of the CPU per pod start.
          env: { SLUICE_EXAMPLES_FROM_DIST: '1' },
        },
      },
    ],
  },
});
