import { type JobDoneBody } from '../contracts/worker-protocol';
import { type WorkerConfig, appendQuery, jobUrl } from './config';
import { OutputNotSerializableError, errorMessage } from './errors';
import { log } from './log';
import { type Transport } from './transport';

/** Where a running job's progress, chunks and result go. */
export interface JobSink {
  /** Posts a progress update. Never rejects. */
  progress(jobId: string, output: unknown): Promise<void>;
  /** Posts one stream chunk. Rejects only with {@link OutputNotSerializableError}. */
  chunk(jobId: string, output: unknown): Promise<void>;
  /**
   * Posts the final result; `payload` is `body` already serialized (see {@link doneBody}).
   * Resolves whether it was delivered; never rejects.
   */
  done(jobId: string, body: JobDoneBody, payload: string, isStream: boolean): Promise<boolean>;
}

/** `JSON.stringify`, throwing {@link OutputNotSerializableError} when the value can't be encoded. */
export function serialize(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (err) {
    throw new OutputNotSerializableError(`output is not JSON-serializable: ${errorMessage(err)}`);
  }
  if (text === undefined) throw new OutputNotSerializableError('output is not JSON-serializable');
  return text;
}

/**
 * A job-done body with its serialized form. A body that can't be serialized becomes
 * `{"error": "output is not JSON-serializable: ..."}` (keeping `stopPod`).
 */
export function doneBody(body: JobDoneBody): { body: JobDoneBody; payload: string } {
  try {
    return { body, payload: serialize(body) };
  } catch (err) {
    const fallback: JobDoneBody = { error: errorMessage(err), ...(body.stopPod ? { stopPod: true } : {}) };
    return { body: fallback, payload: serialize(fallback) };
  }
}

/** Posts to the platform's job-done and job-stream URLs. */
export class HttpSink implements JobSink {
  private warnedNoStream = false;

  constructor(
    private readonly cfg: WorkerConfig,
    private readonly transport: Transport,
  ) {}

  async progress(jobId: string, output: unknown): Promise<void> {
    let payload: string;
    try {
      payload = serialize({ status: 'IN_PROGRESS', output });
    } catch (err) {
      log('warn', 'progress update dropped', { jobId, error: errorMessage(err) });
      return;
    }
    const url = appendQuery(jobUrl(this.cfg.doneUrlTemplate, jobId), { isStream: 'false' });
    await this.transport.deliver(url, payload, { jobId, call: 'progress' }, { 'x-request-id': jobId });
  }

  async chunk(jobId: string, output: unknown): Promise<void> {
    const payload = serialize({ output });
    if (this.cfg.streamUrlTemplate === undefined) {
      if (!this.warnedNoStream) log('warn', 'no stream URL configured, chunks dropped', { jobId });
      this.warnedNoStream = true;
      return;
    }
    // The stock SDK labels chunk POSTs isStream=false too.
    const url = appendQuery(jobUrl(this.cfg.streamUrlTemplate, jobId), { isStream: 'false' });
    await this.transport.deliver(url, payload, { jobId, call: 'job-stream' }, { 'x-request-id': jobId });
  }

  async done(jobId: string, _body: JobDoneBody, payload: string, isStream: boolean): Promise<boolean> {
    const url = appendQuery(jobUrl(this.cfg.doneUrlTemplate, jobId), { isStream: String(isStream) });
    return this.transport.deliver(url, payload, { jobId, call: 'job-done' }, { 'x-request-id': jobId });
  }
}
