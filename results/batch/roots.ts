/**
 * Where a batch may read its input and write its output (SLUICE_BATCH_ROOTS): local directories and
 * `s3://bucket[/prefix]` entries, the results store always among them. One rule for the daemon's
 * activities (whoever starts a workflow bypasses the CLI) and the CLI's early check: paths are
 * resolved (`..`, symlinks of the part that exists) before {@link withinRoots} decides.
 */
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseS3Url } from '../store/s3-url';
import { isS3Location } from './locations';

/** The setting that names the roots, as messages name it. */
export const BATCH_ROOTS_SETTING = 'SLUICE_BATCH_ROOTS';

/** The allowed roots: real local directories, and S3 buckets with an optional key prefix. */
export interface BatchRoots {
  local: string[];
  s3: { bucket: string; prefix: string }[];
}

/** A location resolved for the check: a real absolute path, or an S3 bucket and key. */
export type ResolvedLocation = { local: string } | { bucket: string; key: string };

/** `path` made absolute, with the symlinks of its longest existing ancestor resolved. */
export function realPath(path: string, cwd = process.cwd()): string {
  const abs = resolve(cwd, path);
  let head = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(head), ...rest.reverse());
    } catch {
      const up = dirname(head);
      if (up === head) return abs;
      rest.push(basename(head));
      head = up;
    }
  }
}

/** A batch location resolved: `s3://bucket/key` parsed (throws on a bad one), a path made real. */
export function resolveLocation(location: string, cwd = process.cwd()): ResolvedLocation {
  if (isS3Location(location)) {
    const { bucket, prefix } = parseS3Url(location);
    return { bucket, key: prefix };
  }
  return { local: realPath(location.startsWith('file://') ? fileURLToPath(location) : location, cwd) };
}

/**
 * The roots of a setting's value (comma-separated; default the working directory) and the results
 * store's location, resolved as locations are.
 */
export function batchRoots(value: string | undefined, resultsUrl: string, cwd = process.cwd()): BatchRoots {
  const entries = (value ?? cwd)
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const roots: BatchRoots = { local: [], s3: [] };
  for (const entry of [...entries, resultsUrl]) {
    const r = resolveLocation(entry, cwd);
    if ('local' in r) roots.local.push(r.local);
    else roots.s3.push({ bucket: r.bucket, prefix: r.key });
  }
  return roots;
}

const under = (path: string, root: string): boolean =>
  path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** The rule, pure: a resolved location is allowed when it is a root or lies under one. */
export function withinRoots(location: ResolvedLocation, roots: BatchRoots): boolean {
  if ('local' in location) return isAbsolute(location.local) && roots.local.some((r) => under(location.local, r));
  return roots.s3.some(
    (r) =>
      r.bucket === location.bucket &&
      (r.prefix === '' || location.key === r.prefix || location.key.startsWith(`${r.prefix}/`)),
  );
}

/**
 * Why a batch's `source` and `outDir` may not be used, naming the setting; undefined when both lie
 * under the roots. A location that cannot be parsed is left to the reader to report.
 */
export function batchLocationRefusal(
  locations: { source?: string | undefined; outDir?: string | undefined },
  roots: BatchRoots,
  cwd = process.cwd(),
): string | undefined {
  for (const [what, location] of [
    ['input', locations.source],
    ['output directory', locations.outDir],
  ] as const) {
    if (location === undefined) continue;
    let resolved: ResolvedLocation;
    try {
      resolved = resolveLocation(location, cwd);
    } catch {
      continue;
    }
    if (!withinRoots(resolved, roots))
      return `the batch's ${what} ${location} is outside the places batches may read and write (${BATCH_ROOTS_SETTING}: ${describeRoots(roots)})`;
  }
  return undefined;
}

/** The roots as a message lists them. */
export function describeRoots(roots: BatchRoots): string {
  return [...roots.local, ...roots.s3.map((r) => `s3://${r.bucket}${r.prefix ? `/${r.prefix}` : ''}`)].join(', ');
}
