import { readFileSync } from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { type DaemonConfig } from './config';

type TemporalConfig = Pick<DaemonConfig, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_API_KEY' | 'TEMPORAL_TLS' | 'TEMPORAL_TLS_CLIENT_CERT_PATH' | 'TEMPORAL_TLS_CLIENT_KEY_PATH' | 'TEMPORAL_TLS_SERVER_NAME'>;

/** TLS settings from the standard variables: on with an API key (Temporal Cloud) unless TEMPORAL_TLS=false. */
export function tlsOptions(c: TemporalConfig) {
  const enabled = c.TEMPORAL_TLS ?? (c.TEMPORAL_API_KEY !== undefined || c.TEMPORAL_TLS_CLIENT_CERT_PATH !== undefined);
  if (!enabled) return undefined;
  return {
    ...(c.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: c.TEMPORAL_TLS_SERVER_NAME } : {}),
    ...(c.TEMPORAL_TLS_CLIENT_CERT_PATH && c.TEMPORAL_TLS_CLIENT_KEY_PATH
      ? { clientCertPair: { crt: readFileSync(c.TEMPORAL_TLS_CLIENT_CERT_PATH), key: readFileSync(c.TEMPORAL_TLS_CLIENT_KEY_PATH) } }
      : {}),
  };
}

/** The worker's connection (Rust core). */
export function connectWorker(c: TemporalConfig): Promise<NativeConnection> {
  const tls = tlsOptions(c);
  return NativeConnection.connect({
    address: c.TEMPORAL_ADDRESS,
    ...(tls ? { tls } : {}),
    ...(c.TEMPORAL_API_KEY ? { apiKey: c.TEMPORAL_API_KEY } : {}),
  });
}

/** A Temporal client (gRPC-js) for the same cluster and namespace. */
export async function connectClient(c: TemporalConfig): Promise<Client> {
  const tls = tlsOptions(c);
  const connection = await Connection.connect({
    address: c.TEMPORAL_ADDRESS,
    ...(tls ? { tls } : {}),
    ...(c.TEMPORAL_API_KEY ? { apiKey: c.TEMPORAL_API_KEY } : {}),
  });
  return new Client({ connection, namespace: c.TEMPORAL_NAMESPACE });
}
