/**
 * HTTP faults of the client-facing APIs: a 429, a proxy's 502 page, a reset before processing, a
 * reset after processing (the effect committed, the answer lost) and a late answer (processed at once),
 * drawn per request from the seeded stream. Never applied to the worker protocol.
 */
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Logger } from 'pino';
import { FaultStream } from './draw';
import { type FaultApi, type Faults } from './options';

/** A fault of one request. */
export type HttpFaultKind = '429' | '502' | 'reset-before' | 'reset-after' | 'delay';

/** Runs before the router: answers or breaks the request itself, or calls `next` (now or later). */
export type HttpInterceptor = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** The queue API's client operations (`/v2/{endpoint}/{op}...`); the rest of `/v2` is the worker protocol. */
const QUEUE_OPS = new Set([
  'run',
  'runsync',
  'status',
  'status-sync',
  'stream',
  'cancel',
  'retry',
  'purge-queue',
  'health',
]);

/** The page a proxy in front of the service answers when the service behind it fails. */
const BAD_GATEWAY_PAGE =
  '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** Header naming the fault on the answers that have one (429, 502), for people reading traces. */
export const FAULT_HEADER = 'x-sluice-fault';

/** The client-facing API of a request path, or null (worker protocol, health, unknown). */
export function apiOf(url: string): FaultApi | null {
  const q = url.indexOf('?');
  const parts = (q >= 0 ? url.slice(0, q) : url).split('/').filter(Boolean);
  if (parts[0] === 'v2') return parts.length >= 3 && QUEUE_OPS.has(parts[2]!) ? 'queue' : null;
  if (parts[0] === 'v1') return 'rest';
  if (parts[0] === 'graphql') return 'graphql';
  return null;
}

/** The interceptor of `faults`, or undefined when no HTTP fault is on. */
export function httpFaults(faults: Faults, logger: Logger): HttpInterceptor | undefined {
  const stream = new FaultStream<HttpFaultKind>(
    faults.seed,
    0,
    [
      ['429', faults.rateLimited],
      ['502', faults.badGateway],
      ['reset-before', faults.resetBefore],
      ['reset-after', faults.resetAfter],
      ['delay', faults.delay],
    ],
    faults.delayMs,
  );
  if (!stream.active) return undefined;
  const apis = new Set(faults.apis);
  return (req, res, next) => {
    const api = apiOf(req.url ?? '/');
    if (api === null || !apis.has(api)) return next();
    const { kind, ms } = stream.next();
    if (kind === null) return next();
    logger.debug({ fault: kind, method: req.method, url: req.url, ...(kind === 'delay' ? { ms } : {}) }, 'fault');
    switch (kind) {
      case '429':
        return answer(res, 429, 'application/json', JSON.stringify({ error: 'rate limit exceeded' }), {
          'retry-after': String(faults.retryAfterSeconds),
          [FAULT_HEADER]: kind,
        });
      case '502':
        return answer(res, 502, 'text/html', BAD_GATEWAY_PAGE, { [FAULT_HEADER]: kind });
      case 'reset-before':
        return reset(req);
      case 'reset-after':
        loseAnswer(req, res);
        return next();
      case 'delay':
        holdAnswer(res, ms);
        return next();
    }
  };
}

function answer(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Record<string, string>,
): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body), ...headers });
  res.end(body);
}

/** Resets the connection (TCP RST): the client sees ECONNRESET with no answer. */
function reset(req: IncomingMessage): void {
  req.socket.resetAndDestroy();
}

/** The request is processed as usual; when its answer is written (the effect committed), the connection resets instead. */
function loseAnswer(req: IncomingMessage, res: ServerResponse): void {
  let lost = false;
  const lose = (): boolean => {
    if (!lost) reset(req);
    lost = true;
    return true;
  };
  res.writeHead = ((): ServerResponse => (lose(), res)) as ServerResponse['writeHead'];
  res.write = lose as ServerResponse['write'];
  res.end = ((): ServerResponse => (lose(), res)) as ServerResponse['end'];
}

/** The request is processed at once; its answer is written no sooner than `ms` after it came. */
function holdAnswer(res: ServerResponse, ms: number): void {
  const { writeHead, write, end } = res;
  const held: (() => void)[] = [];
  const hold =
    <A extends unknown[]>(fn: (...a: A) => unknown) =>
    (...a: A): ServerResponse => (held.push(() => void fn.apply(res, a)), res);
  res.writeHead = hold(writeHead) as ServerResponse['writeHead'];
  res.write = ((...a: Parameters<ServerResponse['write']>) => (hold(write)(...a), true)) as ServerResponse['write'];
  res.end = hold(end) as ServerResponse['end'];
  setTimeout(() => {
    Object.assign(res, { writeHead, write, end });
    for (const fn of held) fn();
  }, ms);
}
