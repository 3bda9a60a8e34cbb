/** The daemon's connections to Temporal: the worker's (Rust core) and the client's (gRPC-js, quiet on a stop), as config/temporal.ts resolves them. */
import { Client, Connection, defaultGrpcRetryOptions, makeGrpcRetryInterceptor } from '@temporalio/client';
import { type DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';
import { type TemporalSettings } from '../config/settings';
import { temporalConnectOptions } from '../config/temporal';

type TemporalConfig = Pick<TemporalSettings, 'temporal'>;

/** The worker's connection (Rust core). */
export function connectWorker(c: TemporalConfig): Promise<NativeConnection> {
  return NativeConnection.connect(temporalConnectOptions(c.temporal));
}

/** The daemon's Temporal client and its stop. */
export interface DaemonClient {
  client: Client;
  /** The daemon stops: a call failing from now on is tried at most {@link STOPPING_ATTEMPTS} times in all (the server may be gone). */
  stop(): void;
  /**
   * Stops, then closes the connection once no retry is pending: gRPC-js throws "Channel has been
   * shut down" from the timer of a retry that fires after the close, an uncaught error that
   * would crash the stopping process.
   */
  close(): Promise<void>;
}

/** Attempts of a call once the client stops (a blip is still retried; a server gone is not waited for). */
export const STOPPING_ATTEMPTS = 3;

/**
 * A Temporal client (gRPC-js) for the same cluster and namespace, with the default retries until it
 * stops, and the daemon's data converter (payload encryption, config/payload-keys.ts).
 */
export async function connectClient(c: TemporalConfig, dataConverter: DataConverter = {}): Promise<DaemonClient> {
  const retry = defaultGrpcRetryOptions();
  let stopping = false;
  let closed = false;
  /** When the last scheduled retry fires, ms since the epoch. */
  let retriesUntil = 0;
  const connection = await Connection.connect({
    ...temporalConnectOptions(c.temporal),
    interceptors: [
      makeGrpcRetryInterceptor({
        retryableDecider: (attempt, status) =>
          !closed && (!stopping || attempt < STOPPING_ATTEMPTS) && retry.retryableDecider(attempt, status),
        delayFunction: (attempt, status) => {
          const ms = retry.delayFunction(attempt, status);
          retriesUntil = Math.max(retriesUntil, Date.now() + ms);
          return ms;
        },
      }),
    ],
  });
  let closing: Promise<void> | undefined;
  return {
    client: new Client({ connection, namespace: c.temporal.namespace, dataConverter }),
    stop: () => void (stopping = true),
    close: () =>
      (closing ??= (async () => {
        stopping = true;
        // Every scheduled retry fires (50 ms: its call starts) before the close; none is scheduled after it.
        while (Date.now() < retriesUntil + 50) await new Promise((r) => setTimeout(r, retriesUntil + 50 - Date.now()));
        closed = true;
        await connection.close();
      })()),
  };
}

/** The daemon's two connections: the client's and the worker's, each given (tests) or opened here. */
export interface DaemonConnections {
  client: Client;
  connection: NativeConnection;
  /** The daemon stops: the client opened here retries little from now on ({@link DaemonClient.stop}). */
  stop(): void;
  /** Closes what was opened here: the worker's connection, then the client's. */
  close(): Promise<void>;
}

/** The connections of `given`, else opened from the config: the client first (with `dataConverter`), then the worker's. */
export async function daemonConnections(
  c: TemporalConfig,
  dataConverter: DataConverter,
  given: { client?: Client; connection?: NativeConnection },
): Promise<DaemonConnections> {
  const own: DaemonClient | undefined = given.client ? undefined : await connectClient(c, dataConverter);
  const client = given.client ?? own!.client;
  const connection = given.connection ?? (await connectWorker(c));
  return {
    client,
    connection,
    stop: () => own?.stop(),
    close: async () => {
      if (!given.connection) await connection.close();
      await own?.close();
    },
  };
}
