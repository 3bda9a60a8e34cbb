/** The console's HTTP server (@hono/node-server): listens, says where, closes. */
import { type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { isLoopback } from '../config/console';
import { consoleApp } from './app';
import { consoleContext } from './context';
import { type ConsoleSources } from './sources';

/** Options of {@link startConsole}. */
export interface ConsoleOptions {
  sources: ConsoleSources;
  /** @default '127.0.0.1' (anything else needs `token`: refused without one) */
  host?: string;
  /** @default 8289 (0: any free port) */
  port?: number;
  /** The sign-in token (SLUICE_CONSOLE_TOKEN); required off the loopback interface. */
  token?: string;
  /** Origins allowed to POST besides the console's own (a proxy's public origin). @default none */
  origins?: string[];
}

/** A running console. */
export interface ConsoleServer {
  url: string;
  close(): Promise<void>;
}

/** Starts the console; refuses a host off the loopback interface without a token. */
export async function startConsole(o: ConsoleOptions): Promise<ConsoleServer> {
  const host = o.host ?? '127.0.0.1';
  if (!isLoopback(host) && !o.token)
    throw new Error(`the console listens on ${host}, off this machine: it needs a token (SLUICE_CONSOLE_TOKEN)`);
  const app = consoleApp(consoleContext(o.sources), {
    ...(o.token ? { token: o.token } : {}),
    ...(o.origins ? { origins: o.origins } : {}),
  });
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: o.port ?? 8289, hostname: host }, () => resolve(s));
    s.once('error', reject);
  });
  const addr = server.address() as AddressInfo;
  const shown = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    url: `http://${shown}:${addr.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
