/**
 * What every benchmark script starts and ends with: its flags (`--help` prints its usage and exits
 * 0, an unknown flag exits 2), its table printed (or its JSON), and its exit code.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values<O extends Options> = ReturnType<typeof parseArgs<{ options: O; strict: true }>>['values'];

/**
 * The script's flags as `parseArgs` reads them (strict, no positionals). `--help` (or `-h`) prints
 * `usage` and exits 0; an unknown flag, a missing value or a positional argument prints what was
 * wrong and the usage to stderr and exits 2, before the benchmark starts anything.
 */
export function benchArgs<O extends Options>(usage: string, options: O, argv = process.argv.slice(2)): Values<O> {
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage.trim());
    process.exit(0);
  }
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values as Values<O>;
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${usage.trim()}`);
    process.exit(2);
  }
}

/** Runs a benchmark's `main`: exit 0 when it resolves, 1 (the error printed) when it throws. */
export function runBench(main: () => Promise<unknown>): void {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}

/** Prints a run's figures: one JSON document with `json`, else `meta` and the rows as a table. */
export function printRows(
  meta: Record<string, unknown>,
  rows: Record<string, unknown>[],
  json: boolean | undefined,
): void {
  if (json) console.log(JSON.stringify({ ...meta, rows }, null, 2));
  else {
    console.log(meta);
    console.table(rows);
  }
}
