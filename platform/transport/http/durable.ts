/** Answers sent only once the change they acknowledge is committed. */
import { type ServerResponse } from 'node:http';
import { type PlatformServices } from '../../services';
import { sendJson } from './respond';

/**
 * A JSON answer sent only once the change it acknowledges is committed (group commit): a
 * client or worker never hears of a change a crash could still undo.
 */
export function durableReply(s: PlatformServices) {
  return async (
    res: ServerResponse,
    status: number,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<void> => {
    await s.engine.persisted();
    sendJson(res, status, body, headers);
  };
}
