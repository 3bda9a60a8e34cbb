/**
 * Who may use the console: everyone who reaches it when it listens on 127.0.0.1 (the default);
 * off this machine, only who holds the token: `Authorization: Bearer <token>`, or the session
 * cookie set by the sign-in form (an HMAC of the token, never the token). Compared in constant time.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { type MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { h, page, type Html } from './html';

/** The session cookie's name. */
export const SESSION_COOKIE = 'sluice_console';

/** The cookie value a token signs in with (changes when the token does; reveals nothing of it). */
export const sessionValue = (token: string): string =>
  createHmac('sha256', token).update('sluice console session v1').digest('base64url');

/** True when `given` equals `expected`, in time that does not depend on where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** True when the request carries the token (bearer) or the session cookie of it. */
export function signedIn(token: string, authorization: string | undefined, cookie: string | undefined): boolean {
  const bearer = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1];
  if (bearer !== undefined && sameSecret(bearer.trim(), token)) return true;
  return cookie !== undefined && sameSecret(cookie, sessionValue(token));
}

/** The sign-in page (the token field, nothing else). */
export function loginPage(next: string, failed: boolean): Html {
  return page({
    title: 'Sign in',
    section: '',
    body: h`${failed ? h`<p class="notice bad">That is not the console's token.</p>` : ''}
<form method="post" action="/login"><input type="hidden" name="next" value="${next}">
<label>Token (SLUICE_CONSOLE_TOKEN) <input name="token" type="password" autocomplete="current-password" required autofocus></label>
<p><button type="submit">Sign in</button></p></form>`,
  });
}

/** A local path to go back to after signing in (anything else goes to /). */
export const safeNext = (next: string | undefined): string => (next && /^\/(?![/\\])/.test(next) ? next : '/');

/** The middleware: without a token everything passes; with one, /login and /assets pass and the rest needs the token. */
export function requireToken(token: string | undefined): MiddlewareHandler {
  return async (c, next) => {
    if (!token || c.req.path === '/login' || c.req.path.startsWith('/assets/')) return next();
    if (signedIn(token, c.req.header('authorization'), getCookie(c, SESSION_COOKIE))) return next();
    if (c.req.method === 'GET' && !c.req.header('hx-request'))
      return c.redirect(`/login?next=${encodeURIComponent(c.req.path + (new URL(c.req.url).search || ''))}`, 303);
    return c.json({ error: 'UNAUTHORIZED', message: 'sign in at /login or send Authorization: Bearer <token>' }, 401);
  };
}

/** Handles the sign-in form: the cookie when the token is right (HttpOnly, SameSite=Strict), the form again when not. */
export function login(
  token: string | undefined,
  form: Record<string, string>,
): { cookie?: string; next: string; failed: boolean } {
  const next = safeNext(form.next);
  if (!token) return { next, failed: false };
  if (!sameSecret(form.token ?? '', token)) return { next, failed: true };
  return { cookie: sessionValue(token), next, failed: false };
}
