/**
 * `POST /hooks/...`: a job's webhook call. The URL is verified before a byte of the body is read,
 * the body is capped (LIMITS.webhookBodyBytes: a larger Content-Length is refused unread, a body
 * growing past it as soon as it does), and every refusal is a JSON answer with a stable code.
 */
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { JobRecord, LIMITS, jsonDeeperThan } from '../contracts';
import { type DaemonMetrics } from './metrics';
import { type WebhookHub } from './webhook-hub';

/** The body could not be taken: the status and message of the answer. */
class BodyRefused extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
  }
}

export const sendJson = (res: ServerResponse, status: number, body: unknown, type = 'application/json'): void => {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
};

const tooLarge = (): BodyRefused =>
  new BodyRefused(413, `webhook body is larger than ${LIMITS.webhookBodyBytes} bytes: its job is found by /status`);

/**
 * Reads a JSON body of at most LIMITS.webhookBodyBytes, nested at most LIMITS.jsonDepth deep. A body
 * growing past the cap is refused at once but not torn down: the rest is read and dropped (see `refuse`).
 */
function readJson(req: IncomingMessage): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > LIMITS.webhookBodyBytes) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= LIMITS.webhookBodyBytes) return void chunks.push(c);
      req.off('data', onData).off('end', onEnd).resume();
      chunks.length = 0;
      reject(tooLarge());
    };
    const onEnd = (): void => {
      try {
        resolve(parseBody(Buffer.concat(chunks)));
      } catch (err) {
        reject(err as Error);
      }
    };
    const onClose = (): void => {
      if (!req.complete) reject(new BodyRefused(400, 'the connection closed before the body ended'));
    };
    req.on('data', onData).on('end', onEnd).on('error', reject).once('close', onClose);
  });
}

function parseBody(body: Buffer): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8')) as unknown;
  } catch (err) {
    throw new BodyRefused(400, (err as Error).message);
  }
  // Handed on to Temporal, which writes it out again: a value nested deeper than the platform's limit is refused.
  if (jsonDeeperThan(value, LIMITS.jsonDepth))
    throw new BodyRefused(400, `body nests arrays and objects more than ${LIMITS.jsonDepth} levels deep`);
  return value;
}

/** How long a refused request's unread body is drained before its connection is dropped. */
const DRAIN_MS = 2_000;

/**
 * Answers a request whose body is not (all) read. Closing at once would reset a connection with
 * unread bytes, and a client still sending loses the answer to the reset; so the connection stays
 * open, Node drops the rest of the body as it comes, and a body still coming after DRAIN_MS is cut.
 */
function refuse(res: ServerResponse, status: number, body: unknown): void {
  const { req } = res;
  sendJson(res, status, body);
  if (req.complete) return;
  const socket = req.socket;
  const cut = setTimeout(() => socket.destroy(), DRAIN_MS).unref();
  req.once('end', () => clearTimeout(cut));
  socket.once('close', () => clearTimeout(cut));
}

/** Handles a webhook call to `/hooks/<segments>`. */
export async function webhookRoute(
  hub: WebhookHub | undefined,
  metrics: DaemonMetrics,
  req: IncomingMessage,
  res: ServerResponse,
  segments: string[],
): Promise<void> {
  const verified = hub?.verify(segments);
  if (!hub || !verified || 'refused' in verified) {
    const r = verified && 'refused' in verified ? verified.refused : undefined;
    metrics.webhook(r ? r.code.toLowerCase() : 'unavailable');
    return refuse(res, r?.status ?? 503, r ? { error: r.message, code: r.code } : { error: 'not ready' });
  }
  let record: JobRecord;
  try {
    const parsed = JobRecord.safeParse(await readJson(req));
    if (!parsed.success) throw new BodyRefused(400, parsed.error.message);
    record = parsed.data;
  } catch (err) {
    if (!(err instanceof BodyRefused)) throw err;
    metrics.webhook(err.status === 413 ? 'too_large' : 'bad_request');
    const error = err.status === 413 ? err.message : `webhook body is not a job record: ${err.message.slice(0, 200)}`;
    if (err.status === 413) {
      hub.bodyRefused(verified.target);
      return refuse(res, 413, { error, code: 'WEBHOOK_TOO_LARGE' });
    }
    return sendJson(res, 400, { error, code: 'WEBHOOK_BAD_BODY' });
  }
  const answer = await hub.onWebhook(verified.target, record);
  metrics.webhook(answer.result);
  if (answer.status === 200) return sendJson(res, 200, { result: answer.result });
  sendJson(res, answer.status, { error: answer.message ?? answer.result, code: answer.result.toUpperCase() });
}
