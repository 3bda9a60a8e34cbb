import { type IncomingMessage, type ServerResponse } from 'node:http';
import { MethodNotAllowedError, NotFoundError } from '../errors';

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
  segments: string[];
  handler: Handler;
}

/** A small segment router: literal segments and `:name` parameters, nothing else. */
export class Router {
  private readonly routes: Route[] = [];

  on(methods: string | string[], pattern: string, handler: Handler): this {
    this.routes.push({ methods: [methods].flat(), segments: pattern.split('/').filter(Boolean), handler });
    return this;
  }

  /** The handler and parameters for a request; throws 404 or 405. */
  match(method: string, pathname: string): { handler: Handler; params: Record<string, string> } {
    const parts = pathname.split('/').filter(Boolean);
    let pathMatched = false;
    for (const r of this.routes) {
      const params = matchSegments(r.segments, parts);
      if (!params) continue;
      if (r.methods.includes(method)) return { handler: r.handler, params };
      pathMatched = true;
    }
    if (pathMatched) throw new MethodNotAllowedError(`method ${method} is not allowed on ${pathname}`);
    throw new NotFoundError(`no route for ${method} ${pathname}`);
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i]!;
    const v = parts[i]!;
    if (p.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(v);
      } catch {
        return undefined;
      }
      params[p.slice(1)] = decoded;
    } else if (p !== v) {
      return undefined;
    }
  }
  return params;
}
