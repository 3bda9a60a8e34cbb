/**
 * Listing an S3 results store: a page of its keys (a log's numbered parts left out: they belong to
 * their log's key) and the parts of one log, which the store names `key#000000000001`...
 */
import { ListObjectsV2Command, type ListObjectsV2CommandOutput } from '@aws-sdk/client-s3';
import { type ListPage, type StoreEntry } from './object-store';
import { type S3Target } from './s3-conditional';

/** A log's part number `n` (0 is the key itself): fixed width, so key order is number order. */
export const partKey = (key: string, n: number): string => (n === 0 ? key : `${key}#${String(n).padStart(12, '0')}`);
const PART = /#(\d{12})$/;

/** One numbered part of a log: its number and size. */
export interface LogPart {
  n: number;
  bytes: number;
}

/**
 * At most `limit` keys below `root + prefix` after the object `startAfter` (a full name), in key
 * order, without the logs' parts; `next` when more follow.
 */
export async function listPage(
  t: S3Target,
  root: string,
  prefix: string,
  startAfter: string | undefined,
  limit = 1000,
): Promise<ListPage> {
  const entries: StoreEntry[] = [];
  let token: string | undefined;
  let more = true;
  while (more && entries.length < limit) {
    const res: ListObjectsV2CommandOutput = await t.send('ListObjectsV2', (c) =>
      c.send(
        new ListObjectsV2Command({
          Bucket: t.bucket,
          Prefix: root + prefix,
          MaxKeys: Math.min(1000, limit - entries.length),
          ...(token ? { ContinuationToken: token } : startAfter ? { StartAfter: startAfter } : {}),
        }),
      ),
    );
    for (const c of res.Contents ?? []) {
      const key = c.Key!.slice(root.length);
      startAfter = c.Key!;
      if (!PART.test(key)) entries.push({ key, bytes: c.Size ?? 0, created: c.LastModified?.getTime() ?? 0 });
    }
    more = res.IsTruncated === true;
    token = res.NextContinuationToken;
  }
  return more && entries.length > 0 ? { entries, next: entries[entries.length - 1]!.key } : { entries };
}

/** The numbered parts of the log object `name` (after the object `after`, a full name, if given), in order. */
export async function logParts(t: S3Target, name: string, after?: string): Promise<LogPart[]> {
  const out: LogPart[] = [];
  let token: string | undefined;
  do {
    const res: ListObjectsV2CommandOutput = await t.send('ListObjectsV2', (c) =>
      c.send(
        new ListObjectsV2Command({
          Bucket: t.bucket,
          Prefix: `${name}#`,
          ...(token ? { ContinuationToken: token } : after ? { StartAfter: after } : {}),
        }),
      ),
    );
    for (const c of res.Contents ?? []) {
      const m = PART.exec(c.Key!);
      if (m && c.Key!.length === name.length + 13) out.push({ n: Number(m[1]), bytes: c.Size ?? 0 });
    }
    token = res.IsTruncated ? res.NextContinuationToken : undefined;
  } while (token);
  return out;
}
