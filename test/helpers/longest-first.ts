/**
 * The suite's file order: the files known to be long start first, so the two forks (vitest.config.ts) finish
 * together instead of one running a long file alone at the end. Without a record of its own (a fresh clone: no
 * vitest cache), vitest starts the largest files first, which puts short files with many lines before long ones.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * About how many seconds each long file's tests took in the suite's last green fresh-clone run (2 forks on the 2-core
 * machine, 1076 s in all), longest first; the console's and the pipeline controls' scaled by branch `suite7`'s
 * alternated runs against main (bench/README.md "Test suite"). They set the order only, they are no goal (timing goals
 * live in bench/). A file not named here starts after these, in vitest's order. Update the figures from such a run's
 * log when a file's time changes a lot.
 */
export const LONG_FILES: Readonly<Record<string, number>> = {
  'test/pipeline/crash.test.ts': 74,
  'test/scaler/scaler.test.ts': 74,
  'test/package/pack.test.ts': 71,
  'test/orchestrator/demo.test.ts': 68,
  'test/faults/batch-faults.test.ts': 52,
  'test/faults/job-faults.test.ts': 47,
  'test/batch/crash.test.ts': 47,
  'test/batch/per-job.test.ts': 43,
  'test/batch/webhooks-off.test.ts': 41,
  'test/orchestrator/cli.test.ts': 40,
  'test/console/console.test.ts': 40,
  'test/pipeline/controls.test.ts': 40,
  'test/interop/runpod-python.test.ts': 40,
  'test/batch/multi-daemon.test.ts': 39,
  'test/cli/scaler.test.ts': 37,
  'test/cli/batch.test.ts': 36,
  'test/batch/budget.test.ts': 35,
  'test/batch/batch.test.ts': 34,
  'test/control-plane/scaling.test.ts': 34,
  'test/interop/runpod-e2e.test.ts': 31,
  'test/batch/limits.test.ts': 29,
  'test/faults/rate-storm.test.ts': 28,
  'test/pipeline/cli.test.ts': 28,
  'test/cli/dev-exit.test.ts': 27,
  'test/orchestrator/results-s3.test.ts': 23,
  'test/cli/help.test.ts': 23,
  'test/pipeline/own-workflow.test.ts': 23,
  'test/batch/rerun.test.ts': 22,
  'test/faults/scaler-faults.test.ts': 22,
  'test/faults/temporal-restart.test.ts': 22,
  'test/control-plane/rolling-release.test.ts': 21,
  'test/store/object-store.test.ts': 20,
};

/** vitest's order (BaseSequencer) with the long files moved first, longest first (a stable sort keeps the rest). */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) => LONG_FILES[relative(this.ctx.config.root, f.moduleId)] ?? 0;
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}
