/** HTTP authentication: the API key of a request, its user, and endpoint ownership. */
import { type IncomingMessage } from 'node:http';
import { type Endpoint } from '../../../contracts';
import { UnauthorizedError, NotFoundError } from '../../core/errors';
import { SAFE_ID } from '../../core/ids';
import { type User } from '../../control-plane/users';
import { type PlatformServices } from '../../services';

/** The credential of `authorization: Bearer <key>` or of the bare `authorization: <key>`. */
export function credential(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(h.trim());
  const key = (m ? m[1]! : h).trim();
  return key.length > 0 ? key : undefined;
}

/** The caller's user; 401 when the key is missing or unknown. */
export function authenticate(s: PlatformServices, req: IncomingMessage): User {
  const key = credential(req);
  if (!key) throw new UnauthorizedError('missing API key: send "authorization: Bearer <key>"');
  const user = s.users.byApiKey(key);
  if (!user) throw new UnauthorizedError('invalid API key');
  return user;
}

/** The endpoint `id` of `user`: 404 when it does not exist, 401 when it is someone else's. */
export function ownedEndpoint(s: PlatformServices, user: User, id: string | undefined): Endpoint {
  const e = id !== undefined && SAFE_ID.test(id) ? s.registry.endpoint(id) : undefined;
  if (!e) throw new NotFoundError(`endpoint ${id ?? ''} not found`);
  if (e.userId !== user.id) throw new UnauthorizedError('this API key has no access to that endpoint');
  return e;
}
