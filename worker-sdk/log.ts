/** JSON-lines logging to stderr. Threshold from `RUNPOD_DEBUG_LEVEL` (DEBUG, INFO, WARN, ERROR). */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function parseLevel(value: string | undefined): LogLevel {
  const v = (value ?? '').trim().toLowerCase();
  if (v === 'debug' || v === 'trace') return 'debug';
  if (v === 'warn' || v === 'warning') return 'warn';
  if (v === 'error') return 'error';
  return 'info';
}

let threshold = RANK[parseLevel(process.env.RUNPOD_DEBUG_LEVEL)];

/** Changes the minimum level written (default from `RUNPOD_DEBUG_LEVEL`, else `info`). */
export function setLogLevel(level: LogLevel): void {
  threshold = RANK[level];
}

/** Writes one JSON line `{ts, level, msg, ...fields}` to stderr. Never throws. */
export function log(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
  if (RANK[level] < threshold) return;
  const ts = new Date().toISOString();
  let line: string;
  try {
    line = JSON.stringify({ ts, level, msg, ...fields });
  } catch {
    line = JSON.stringify({ ts, level, msg });
  }
  process.stderr.write(line + '\n');
}
