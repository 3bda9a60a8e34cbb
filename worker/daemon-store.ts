/** The daemon's results store (SLUICE_RESULTS_URL, else SLUICE_RESULTS_DIR), opened first: one it cannot use stops the start. */
import { ConfigError } from '../config/errors';
import { resultsUrlOf } from '../config/settings';
import { type ObjectStore } from '../results/store/object-store';
import { checkConditionalWrites, openResultsStore } from '../results/store/open';
import { type DaemonConfig } from './config';

/**
 * The results store of SLUICE_RESULTS_URL (else SLUICE_RESULTS_DIR). On S3 it must honour
 * conditional writes (journals and appends rely on them): checked here, or the daemon refuses to start.
 */
export async function openStore(config: DaemonConfig): Promise<ObjectStore> {
  const url = resultsUrlOf(config);
  const variable = config.SLUICE_RESULTS_URL !== undefined ? 'SLUICE_RESULTS_URL' : 'SLUICE_RESULTS_DIR';
  let store: ObjectStore | undefined;
  try {
    store = openResultsStore(url);
    if (store.kind === 's3') await checkConditionalWrites(store);
    return store;
  } catch (err) {
    await store?.close().catch(() => undefined);
    const hint = url.startsWith('s3://')
      ? ' (endpoint and credentials: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)'
      : '';
    throw new ConfigError([
      {
        variable,
        message: `the results store ${url} cannot be used: ${(err as Error).message || (err as Error).name}${hint}`,
      },
    ]);
  }
}
