/** A small segment router: literal segments and `:name` parameters. */
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { MethodNotAllowedError, NotFoundError } from '../../core/errors';

/** What a route handler receives. */
export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Aborted when the caller goes away (long-polls stop waiting). */
  signal: AbortSignal;
  /** Runs after the answer is written or the connection is gone. */
  onDone(fn: () => void): void;
}

export type Handler = (ctx: Ctx) => Promise<void> | void;

interface Route {
  methods: string[];
  /** Literal segment at each position, or undefined where a parameter stands. */
  literals: (string | undefined)[];
  /** Parameter names with their positions. */
  params: [number, string][];
  handler: Handler;
}

/** A small segment router: literal segments and `:name` parameters, nothing else. */
export class Router {
  /** Routes by segment count: a request is only compared with routes of its own length. */
  private readonly byLength = new Map<number, Route[]>();

  on(methods: string | string[], pattern: string, handler: Handler): this {
    const segments = pattern.split('/').filter(Boolean);
    const route: Route = {
      methods: [methods].flat(),
      literals: segments.map((p) => (p.startsWith(':') ? undefined : p)),
      params: segments.flatMap((p, i): [number, string][] => (p.startsWith(':') ? [[i, p.slice(1)]] : [])),
      handler,
    };
    const list = this.byLength.get(segments.length) ?? [];
    list.push(route);
    this.byLength.set(segments.length, list);
    return this;
  }

  /** The handler and parameters for a request; throws 404 or 405. */
  match(method: string, pathname: string): { handler: Handler; params: Record<string, string> } {
    const parts = pathname.split('/').filter(Boolean);
    let pathMatched = false;
    for (const r of this.byLength.get(parts.length) ?? []) {
      if (!r.literals.every((lit, i) => lit === undefined || lit === parts[i])) continue;
      const params = decodeParams(r, parts);
      if (!params) continue;
      if (r.methods.includes(method)) return { handler: r.handler, params };
      pathMatched = true;
    }
    if (pathMatched) throw new MethodNotAllowedError(`method ${method} is not allowed on ${pathname}`);
    throw new NotFoundError(`no route for ${method} ${pathname}`);
  }
}

/** The route's parameters, decoded; undefined when one is not valid percent-encoding. */
function decodeParams(r: Route, parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [i, name] of r.params) {
    try {
      params[name] = decodeURIComponent(parts[i]!);
    } catch {
      return undefined;
    }
  }
  return params;
}
