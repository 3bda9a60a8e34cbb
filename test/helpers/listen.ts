/** A test HTTP server on 127.0.0.1 port 0, and its close (the fake servers and proxies of the tests). */
import { type Server } from 'node:http';
import { type AddressInfo } from 'node:net';

/** A test HTTP server listening on 127.0.0.1 port 0: its URL, and a close that also ends the connections still open. */
export async function listenLocal(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
