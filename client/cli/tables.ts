/** Aligned columns for people: the one table layout every command's listing uses (endpoints, templates, the scaler's decisions and schedules). */

/** Rows as aligned lines, each prefixed with `indent` (the first row is the header; the last column is not padded). */
export function tableLines(rows: string[][], indent = ''): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => `${indent}${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}`);
}

/** Prints rows as aligned columns (the first row is the header). */
export function printTable(rows: string[][]): void {
  for (const line of tableLines(rows)) console.log(line);
}
