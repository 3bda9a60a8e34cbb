/**
 * The suite's file order: the files known to be long start first, so the two forks (vitest.config.ts) finish
 * together instead of one running a long file alone at the end. Without a record of its own (a fresh clone: no
 * vitest cache), vitest starts the largest files first, which puts short files with many lines before long ones.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * About how many seconds each long file takes alone on the 2-core machine (`npx vitest run FILE`): quiet figures
 * where known, else at load 6-10 (the CLI's scaler: 194 s at load 16). Longest first. They set the order only, they
 * are no goal (timing goals live in bench/). A file not named here starts after these, in vitest's order. Update a
 * figure when a file's time changes a lot.
 */
export const LONG_FILES: Readonly<Record<string, number>> = {
  'test/cli/scaler.test.ts': 75,
  'test/console/console.test.ts': 73,
  'test/scaler/scaler.test.ts': 69,
  'test/pipeline/crash.test.ts': 63,
  'test/orchestrator/demo.test.ts': 60,
  'test/batch/per-job.test.ts': 60,
  'test/faults/batch-faults.test.ts': 60,
  'test/package/pack.test.ts': 60,
  'test/pipeline/controls.test.ts': 49,
  'test/batch/crash.test.ts': 46,
  'test/pipeline/pipeline.test.ts': 45,
  'test/batch/webhooks-off.test.ts': 45,
  'test/batch/budget.test.ts': 41,
  'test/platform/restart.test.ts': 40,
  'test/pipeline/limits.test.ts': 39,
  'test/cli/batch.test.ts': 37,
  'test/batch/batch.test.ts': 37,
  'test/faults/rate-storm.test.ts': 37,
  'test/security/payload-encryption.test.ts': 33,
  'test/pipeline/cli.test.ts': 29,
  'test/cli/batch-rerun.test.ts': 29,
  'test/faults/temporal-restart.test.ts': 28,
  'test/deploy/metrics.test.ts': 26,
  'test/cli/help.test.ts': 25,
};

/** vitest's order (BaseSequencer) with the long files moved first, longest first (a stable sort keeps the rest). */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = (f: TestSpecification) => LONG_FILES[relative(this.ctx.config.root, f.moduleId)] ?? 0;
    return (await super.sort(files)).sort((a, b) => seconds(b) - seconds(a));
  }
}
