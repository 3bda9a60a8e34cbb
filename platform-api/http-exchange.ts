/** The HTTP core's transport besides its undici pool: one exchange (request, answer, body) over Node's own http / https. */

/** An answer as the transports give it: status, headers (lower-case names) and the body's text. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One exchange over a transport; `signal` covers it whole, body included. */
export type Exchange = (
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal },
) => Promise<RawAnswer>;

/** One exchange over Node's own `http` / `https` (`HttpCoreOptions.nodeHttp`, http.ts). */
export const nodeExchange: Exchange = async (url, init) => {
  const { request } = url.protocol === 'https:' ? await import('node:https') : await import('node:http');
  return new Promise<RawAnswer>((resolve, reject) => {
    const length = init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {};
    const headers = { ...init.headers, ...length };
    const req = request(url, { method: init.method, headers, signal: init.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', reject);
      res.once('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    // An abort rejects with the signal's reason, as undici's request does.
    req.once('error', (err) => reject(init.signal.aborted ? (init.signal.reason as Error) : err));
    req.end(init.body);
  });
};
