/** Streaming JSON lines into one S3 object: a multipart upload once the lines exceed one part, aborted on error. */
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  UploadPartCommand,
  type S3Client,
} from '@aws-sdk/client-s3';

/** What {@link uploadLines} needs of the store: where, part size, and its counted `send`. */
export interface UploadTarget {
  bucket: string;
  /** The object's full name (prefix included). */
  name: string;
  /** Part size (S3's minimum is 5 MiB, except the last part). */
  partBytes: number;
  send<T>(kind: string, make: (c: S3Client) => Promise<T>, written?: number): Promise<T>;
}

/**
 * Uploads `values` as JSON lines, one part in memory at a time. Returns the text when it all fit
 * in one part (the caller writes it with one PUT), else the bytes uploaded.
 */
export async function uploadLines(
  t: UploadTarget,
  values: AsyncIterable<unknown> | Iterable<unknown>,
): Promise<string | number> {
  const { bucket, name: Key } = t;
  let buf: string[] = [];
  let size = 0;
  let total = 0;
  let id: string | undefined;
  const parts: { ETag: string; PartNumber: number }[] = [];
  const flush = async (): Promise<void> => {
    const body = Buffer.from(buf.join(''));
    buf = [];
    size = 0;
    total += body.length;
    id ??= (
      await t.send('CreateMultipartUpload', (c) =>
        c.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key, ContentType: 'application/x-ndjson' })),
      )
    ).UploadId!;
    const UploadId = id;
    const PartNumber = parts.length + 1;
    const res = await t.send(
      'UploadPart',
      (c) => c.send(new UploadPartCommand({ Bucket: bucket, Key, UploadId, PartNumber, Body: body })),
      body.length,
    );
    parts.push({ ETag: res.ETag!, PartNumber });
  };
  try {
    for await (const v of values) {
      const line = `${JSON.stringify(v ?? null)}\n`;
      buf.push(line);
      size += Buffer.byteLength(line);
      if (size >= t.partBytes) await flush();
    }
    if (id === undefined) return buf.join('');
    if (size > 0) await flush();
    const UploadId = id;
    await t.send('CompleteMultipartUpload', (c) =>
      c.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key, UploadId, MultipartUpload: { Parts: parts } })),
    );
    return total;
  } catch (err) {
    const UploadId = id;
    if (UploadId !== undefined)
      await t
        .send('AbortMultipartUpload', (c) => c.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId })))
        .catch(() => undefined);
    throw err;
  }
}
