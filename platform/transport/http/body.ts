/** Reading request bodies within a size limit and parsing them as JSON. */
import { type IncomingMessage } from 'node:http';
import { BadRequestError, PayloadTooLargeError } from '../../core/errors';

const mb = (n: number): string => `${Math.round(n / (1024 * 1024))} MB`;

/**
 * Reads a request body up to `limit` bytes. Over the limit it stops reading and throws a 400
 * that names the limit (the caller closes the connection, since the rest is unread).
 */
export async function readBody(req: IncomingMessage, limit: number, what: string): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    throw new PayloadTooLargeError(`payload too large: ${declared} bytes exceed the ${mb(limit)} limit of ${what}`, { limit });
  }
  if (req.readableEnded) return Buffer.alloc(0);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(new PayloadTooLargeError(`payload too large: the body exceeds the ${mb(limit)} limit of ${what}`, { limit }));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanup();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(new BadRequestError(`request body could not be read: ${err.message}`));
    };
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('aborted', onAborted);
    };
    const onAborted = (): void => onError(new Error('the client went away'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onAborted);
  });
}

/** Parses JSON whatever the content type says (the stock worker SDK labels JSON as form data). */
export function parseJson(buf: Buffer, { allowEmpty = false } = {}): unknown {
  const text = buf.toString('utf8').trim();
  if (text.length === 0) {
    if (allowEmpty) return undefined;
    throw new BadRequestError('request body is empty; expected a JSON object');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new BadRequestError(`request body is not valid JSON: ${(err as Error).message}`);
  }
}

/** Validates with a zod schema; a failure is a 400 naming the first offending field. */
export { validate } from '../../core/validate';
