import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { WORKER_ENV } from '../contracts/worker-protocol';
import { ConfigError } from './errors';

/** Settings of a polling worker, read once from the environment. */
export interface WorkerConfig {
  /** `RUNPOD_POD_ID`, or a random UUID when unset. */
  podId: string;
  /** Whether `RUNPOD_POD_ID` was set (the ping needs it). */
  podIdFromEnv: boolean;
  endpointId: string | undefined;
  /** Sent as a bare `Authorization` header on every call. */
  apiKey: string | undefined;
  /** Take URL with `$ID` replaced by the pod id. */
  takeUrl: string;
  /** Take URL with `/job-take/` replaced by `/job-stop/`; undefined when it has no `/job-take/`. */
  stopUrl: string | undefined;
  /** Done URL with `$RUNPOD_POD_ID` replaced; `$ID` still stands for the job id. */
  doneUrlTemplate: string;
  /** Stream URL, same substitutions as the done URL (derived from it when unset). */
  streamUrlTemplate: string | undefined;
  /** Ping URL with `$RUNPOD_POD_ID` replaced. */
  pingUrl: string | undefined;
  pingIntervalMs: number;
}

const optionalText = z.preprocess(
  (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
  z.string().trim().optional(),
);

const EnvSchema = z.object({
  [WORKER_ENV.takeUrl]: optionalText,
  [WORKER_ENV.doneUrl]: optionalText,
  [WORKER_ENV.streamUrl]: optionalText,
  [WORKER_ENV.pingUrl]: optionalText,
  [WORKER_ENV.podId]: optionalText,
  [WORKER_ENV.endpointId]: optionalText,
  [WORKER_ENV.apiKey]: optionalText,
  [WORKER_ENV.pingInterval]: z.preprocess(
    (v) => (v === undefined || (typeof v === 'string' && v.trim() === '') ? undefined : Number(v)),
    z
      .number({ error: `${WORKER_ENV.pingInterval} must be a number of milliseconds` })
      .int({ error: `${WORKER_ENV.pingInterval} must be an integer number of milliseconds` })
      .min(100, { error: `${WORKER_ENV.pingInterval} must be at least 100 ms` })
      .default(10_000),
  ),
});

/** Replaces every occurrence of `placeholder` in `text`. */
const substitute = (text: string, placeholder: string, value: string): string => text.split(placeholder).join(value);

function checkUrl(name: string, url: string): void {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`${name} is not a valid URL: ${url}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http(s) URL: ${url}`);
}

/**
 * Reads the worker environment. Returns undefined when `RUNPOD_WEBHOOK_GET_JOB` is unset (local test
 * mode). Throws {@link ConfigError} when a variable is malformed or the done URL is missing.
 */
export function loadConfig(env: NodeJS.ProcessEnv): WorkerConfig | undefined {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => i.message).join('; '));
  const e = parsed.data;
  const take = e[WORKER_ENV.takeUrl];
  if (take === undefined) return undefined;

  const podId = e[WORKER_ENV.podId] ?? randomUUID();
  const takeUrl = substitute(take, '$ID', podId);
  checkUrl(WORKER_ENV.takeUrl, takeUrl);

  const done = e[WORKER_ENV.doneUrl];
  if (done === undefined) throw new ConfigError(`${WORKER_ENV.doneUrl} is required when ${WORKER_ENV.takeUrl} is set`);
  const doneUrlTemplate = substitute(done, '$RUNPOD_POD_ID', podId);
  checkUrl(WORKER_ENV.doneUrl, substitute(doneUrlTemplate, '$ID', 'job'));

  const stream =
    e[WORKER_ENV.streamUrl] ?? (done.includes('/job-done/') ? done.replace('/job-done/', '/job-stream/') : undefined);
  const streamUrlTemplate = stream === undefined ? undefined : substitute(stream, '$RUNPOD_POD_ID', podId);
  if (streamUrlTemplate !== undefined) checkUrl(WORKER_ENV.streamUrl, substitute(streamUrlTemplate, '$ID', 'job'));

  const ping = e[WORKER_ENV.pingUrl];
  const pingUrl = ping === undefined ? undefined : substitute(ping, '$RUNPOD_POD_ID', podId);
  if (pingUrl !== undefined) checkUrl(WORKER_ENV.pingUrl, pingUrl);

  return {
    podId,
    podIdFromEnv: e[WORKER_ENV.podId] !== undefined,
    endpointId: e[WORKER_ENV.endpointId],
    apiKey: e[WORKER_ENV.apiKey],
    takeUrl,
    stopUrl: takeUrl.includes('/job-take/') ? takeUrl.replace('/job-take/', '/job-stop/') : undefined,
    doneUrlTemplate,
    streamUrlTemplate,
    pingUrl,
    pingIntervalMs: e[WORKER_ENV.pingInterval],
  };
}

/** Appends query parameters to a URL that may already carry a query (`?a=b` -> `?a=b&x=y`). */
export function appendQuery(url: string, params: Record<string, string>): string {
  const qs = new URLSearchParams(params).toString();
  if (qs === '') return url;
  const sep = !url.includes('?') ? '?' : url.endsWith('?') || url.endsWith('&') ? '' : '&';
  return url + sep + qs;
}

/** Fills `$ID` of a done/stream URL template with a job id. */
export const jobUrl = (template: string, jobId: string): string =>
  substitute(template, '$ID', encodeURIComponent(jobId));
