import { sleep } from './async';
import { type WorkerConfig } from './config';
import { describeError } from './errors';
import { log } from './log';
import { type Runner } from './runner';
import { type Transport } from './transport';

/** `runpod_version` the ping reports. */
export const RUNTIME_VERSION = 'sluice-ts';

/** The ping URL for the given running job ids (`job_id` left out when idle). */
export function pingUrlFor(base: string, jobIds: readonly string[]): string {
  const url = new URL(base);
  if (jobIds.length > 0) url.searchParams.set('job_id', jobIds.join(','));
  url.searchParams.set('runpod_version', RUNTIME_VERSION);
  return url.toString();
}

/** Whether the heartbeat runs: it needs the ping URL, `RUNPOD_POD_ID` and the API key. */
export const pingEnabled = (cfg: WorkerConfig): boolean =>
  cfg.pingUrl !== undefined && cfg.podIdFromEnv && cfg.apiKey !== undefined;

/** Pings at once, then every `pingIntervalMs`, until `halt` aborts. Never rejects. */
export async function pingLoop(
  cfg: WorkerConfig,
  transport: Transport,
  runner: Runner,
  halt: AbortSignal,
): Promise<void> {
  const base = cfg.pingUrl;
  if (base === undefined || !pingEnabled(cfg)) return;
  let failures = 0;
  while (!halt.aborted) {
    const started = Date.now();
    try {
      const res = await transport.send('GET', pingUrlFor(base, runner.runningIds()), {
        signal: halt,
        timeoutMs: 2 * cfg.pingIntervalMs,
      });
      if (res.status >= 400 && failures++ % 10 === 0) log('warn', 'ping refused', { status: res.status, failures });
      else if (res.status < 400) failures = 0;
    } catch (err) {
      if (halt.aborted) break;
      if (failures++ % 10 === 0) log('warn', 'ping failed', { error: describeError(err), failures });
    }
    await sleep(cfg.pingIntervalMs - (Date.now() - started), halt);
  }
}
