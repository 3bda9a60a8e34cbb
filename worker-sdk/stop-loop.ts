import { sleep } from './async';
import { JobStoppedError, RequestTimeoutError, describeError } from './errors';
import { log } from './log';
import { type Runner } from './runner';
import { type Transport, parseJson } from './transport';

/** Client timeout of a job-stop long-poll. */
const STOP_TIMEOUT_MS = 90_000;
/** Least time between two polls that brought nothing (or failed). */
const MIN_IDLE_CYCLE_MS = 1_000;

/** Ids in a job-stop answer `{"jobsToStop": [...]}`; non-string ids are ignored. */
export function jobsToStop(body: unknown): string[] {
  if (typeof body !== 'object' || body === null) return [];
  const list = (body as { jobsToStop?: unknown }).jobsToStop;
  return Array.isArray(list) ? list.filter((id): id is string => typeof id === 'string') : [];
}

/**
 * Polls job-stop until `halt` aborts and aborts the running jobs it names. 204 or an empty answer
 * waits out the rest of a 1 s cycle; 429 waits 5 s; an error waits 1 s. Never rejects.
 */
export async function stopLoop(url: string, transport: Transport, runner: Runner, halt: AbortSignal): Promise<void> {
  let failures = 0;
  while (!halt.aborted) {
    const started = Date.now();
    let waitMs = 0;
    try {
      const res = await transport.send('GET', url, { signal: halt, timeoutMs: STOP_TIMEOUT_MS });
      if (res.status === 200) {
        failures = 0;
        const ids = jobsToStop(parseJson(res.text));
        const hit = runner.stop(ids, new JobStoppedError('job stopped by the platform'));
        if (ids.length > 0) log('info', 'job-stop received', { jobIds: ids, stopped: hit });
        else waitMs = MIN_IDLE_CYCLE_MS - (Date.now() - started);
      } else if (res.status === 204) {
        failures = 0;
        waitMs = MIN_IDLE_CYCLE_MS - (Date.now() - started);
      } else if (res.status === 429) {
        waitMs = 5_000;
      } else {
        if (failures++ % 30 === 0) log('warn', 'job-stop failed', { status: res.status, failures });
        waitMs = MIN_IDLE_CYCLE_MS;
      }
    } catch (err) {
      if (halt.aborted) break;
      if (!(err instanceof RequestTimeoutError) && failures++ % 30 === 0)
        log('warn', 'job-stop failed', { error: describeError(err), failures });
      waitMs = MIN_IDLE_CYCLE_MS;
    }
    await sleep(waitMs, halt);
  }
}
