/** What a REST (`/v1`) request carries, read the same way by every REST route: its JSON body and its boolean query flags. */
import { BadRequestError } from '../core/errors';
import { parseJson, readBody } from './http/body';
import { type Ctx } from './http/router';

/** Largest REST body (a template is a few KB). */
export const REST_BODY_LIMIT = 1024 * 1024;

/** The request's JSON body (at most {@link REST_BODY_LIMIT}); `what` names the request in errors. */
export async function restBody(ctx: Ctx, what: string): Promise<unknown> {
  return parseJson(await readBody(ctx.req, REST_BODY_LIMIT, what));
}

/** A boolean query flag: absent = false; `true`/`false` (or 1/0); anything else is a 400 naming it. */
export function flag(ctx: Ctx, name: string): boolean {
  const v = ctx.query.get(name);
  if (v === null || v === 'false' || v === '0') return false;
  if (v === 'true' || v === '1' || v === '') return true;
  throw new BadRequestError(`invalid query: ${name} must be true or false, got "${v}"`, { field: name });
}
