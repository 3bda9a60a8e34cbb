/** Reading request bodies within a size limit, discarding refused ones, and parsing them as JSON. */
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { LIMITS, jsonDeeperThan } from '../../../contracts';
import { BadRequestError, JsonTooDeepError, PayloadTooLargeError } from '../../core/errors';

const mb = (n: number): string => `${Math.round(n / (1024 * 1024))} MB`;

/** Requests that sent `Expect: 100-continue` and have not been told to go on: their body is not sent yet. */
const awaitingContinue = new WeakMap<IncomingMessage, ServerResponse>();

/** Marks a request that waits for `100 Continue` (the server's `checkContinue`); {@link readBody} sends it. */
export function expectsContinue(req: IncomingMessage, res: ServerResponse): void {
  awaitingContinue.set(req, res);
}

/**
 * Reads a request body up to `limit` bytes. Over the limit it stops reading and throws a 400
 * that names the limit; whoever answers calls {@link discardUnread} first. A declared
 * `Content-Length` over the limit is refused before a byte is read (and, with
 * `Expect: 100-continue`, before the client sends it).
 */
export async function readBody(req: IncomingMessage, limit: number, what: string): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) {
    throw new PayloadTooLargeError(`payload too large: ${declared} bytes exceed the ${mb(limit)} limit of ${what}`, {
      limit,
    });
  }
  const waiting = awaitingContinue.get(req);
  if (waiting) {
    awaitingContinue.delete(req);
    waiting.writeContinue();
  }
  if (req.readableEnded) return Buffer.alloc(0);
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        // Paused, so nothing is lost unseen until discardUnread counts the rest.
        req.pause();
        reject(
          new PayloadTooLargeError(`payload too large: the body exceeds the ${mb(limit)} limit of ${what}`, { limit }),
        );
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

const CLOSE = { connection: 'close' };

/**
 * Before answering a request whose body was not read to its end (refused as too large, or an
 * error came first): reads and discards the rest, at most {@link LIMITS.overLimitDrainBytes}
 * for at most {@link LIMITS.overLimitDrainMs}. A client sends its whole body before it reads
 * the answer; closing on it mid-send gives it a broken pipe instead of the error. Resolves with
 * the headers for the answer: `connection: close` when the rest could not be discarded (or was
 * never sent, waiting for `100 Continue`). `maxBytes` lowers the bound (a caller that was never
 * authenticated gets its body discarded up to the route's own limit, not more).
 */
export function discardUnread(
  req: IncomingMessage,
  maxBytes: number = LIMITS.overLimitDrainBytes,
): Promise<Record<string, string> | undefined> {
  if (req.complete) return Promise.resolve(undefined);
  if (awaitingContinue.delete(req)) return Promise.resolve(CLOSE);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (req.destroyed || (Number.isFinite(declared) && declared > maxBytes)) return Promise.resolve(CLOSE);
  return new Promise((resolve) => {
    let discarded = 0;
    const done = (headers: Record<string, string> | undefined): void => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFail);
      req.off('close', onFail);
      if (headers) req.pause();
      resolve(headers);
    };
    const onData = (chunk: Buffer): void => {
      discarded += chunk.length;
      if (discarded > maxBytes) done(CLOSE);
    };
    const onEnd = (): void => done(undefined);
    const onFail = (): void => done(CLOSE);
    const timer = setTimeout(onFail, LIMITS.overLimitDrainMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFail);
    req.on('close', onFail);
    req.resume();
  });
}

/**
 * Parses JSON whatever the content type says (the stock worker SDK labels JSON as form data).
 * Arrays and objects nested deeper than {@link LIMITS.jsonDepth} are refused: writing such a
 * value again (to SQLite, to a webhook, to a client) would overflow the stack.
 */
export function parseJson(buf: Buffer, { allowEmpty = false } = {}): unknown {
  const text = buf.toString('utf8').trim();
  if (text.length === 0) {
    if (allowEmpty) return undefined;
    throw new BadRequestError('request body is empty; expected a JSON object');
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw new BadRequestError(`request body is not valid JSON: ${(err as Error).message}`);
  }
  if (jsonDeeperThan(value, LIMITS.jsonDepth)) {
    throw new JsonTooDeepError(
      `request body nests arrays and objects more than ${LIMITS.jsonDepth} levels deep (the limit of every JSON body)`,
      {
        limit: LIMITS.jsonDepth,
      },
    );
  }
  return value;
}

/** Validates with a zod schema; a failure is a 400 naming the first offending field. */
export { validate } from '../../core/validate';
