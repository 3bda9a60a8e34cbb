/** One request's context: params, query, abort signal and completion hooks. */
import { type IncomingMessage, type ServerResponse } from 'node:http';
import { type Ctx } from './router';

/**
 * One request's context. A class, not an object of closures: the request path creates no
 * function objects (each would also be named at run time by the TypeScript loader).
 */
export class RequestContext implements Ctx {
  params: Record<string, string> = {};
  private queryCache: URLSearchParams | undefined;
  private abort: AbortController | undefined;
  private done: (() => void)[] | undefined;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly queryStart: number,
  ) {
    res.once('close', this.closed);
  }

  get query(): URLSearchParams {
    return (this.queryCache ??= new URLSearchParams(
      this.queryStart >= 0 ? this.req.url!.slice(this.queryStart + 1) : '',
    ));
  }

  /** Aborted when the caller goes away; made only for the few routes that wait. */
  get signal(): AbortSignal {
    this.abort ??= new AbortController();
    if (this.res.destroyed && !this.res.writableFinished) this.abort.abort();
    return this.abort.signal;
  }

  onDone(fn: () => void): void {
    (this.done ??= []).push(fn);
  }

  private readonly closed = (): void => {
    if (this.abort && !this.res.writableFinished) this.abort.abort();
    if (this.done) for (const fn of this.done) fn();
  };
}
