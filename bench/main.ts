/** What every benchmark script ends with: its table printed (or its JSON), and its exit code from its main. */

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
