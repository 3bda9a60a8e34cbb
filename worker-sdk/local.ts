import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type JobDoneBody, TakenJob } from '../contracts/worker-protocol';
import { type JobSink, serialize } from './delivery';
import { TestInputError, errorMessage, formatIssues } from './errors';
import { executeJob } from './execute';
import { log } from './log';
import { type Handler } from './types';

/** The value of `--test_input <json>` or `--test_input=<json>`, if given. */
export function testInputArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--test_input') return argv[i + 1] ?? '';
    if (arg.startsWith('--test_input=')) return arg.slice('--test_input='.length);
  }
  return undefined;
}

async function loadTestJob(argJson: string | undefined): Promise<TakenJob> {
  let text = argJson;
  if (text === undefined) {
    const file = resolve('test_input.json');
    try {
      text = await readFile(file, 'utf8');
    } catch {
      throw new TestInputError(`no --test_input argument and no readable ${file}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new TestInputError(`test input is not valid JSON: ${errorMessage(err)}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !('input' in parsed)) {
    throw new TestInputError('test input must be a JSON object with an "input" field');
  }
  const job = TakenJob.safeParse({ id: 'local_test', ...parsed });
  if (!job.success) throw new TestInputError(`invalid test job: ${formatIssues(job.error.issues, 'job')}`);
  return job.data;
}

/** Collects the result instead of posting it. */
class LocalSink implements JobSink {
  result: { body: JobDoneBody; payload: string } | undefined;

  progress(jobId: string, output: unknown): Promise<void> {
    log('info', 'progress', { jobId, output });
    return Promise.resolve();
  }

  chunk(jobId: string, output: unknown): Promise<void> {
    serialize(output);
    log('debug', 'chunk', { jobId, output });
    return Promise.resolve();
  }

  done(_jobId: string, body: JobDoneBody, payload: string): Promise<boolean> {
    this.result = { body, payload };
    return Promise.resolve(true);
  }
}

/**
 * Test mode: runs one job from `--test_input` or `./test_input.json` and prints the job-done body
 * (`{"output": ...}` or `{"error": ...}`; a stream's chunks become the output array) as one JSON
 * line on stdout. Returns whether the job succeeded.
 */
export async function runLocal(
  handler: Handler<unknown>,
  argJson: string | undefined,
  signal?: AbortSignal,
): Promise<boolean> {
  let raw: TakenJob;
  try {
    raw = await loadTestJob(argJson);
  } catch (err) {
    log('error', 'test input rejected', { error: errorMessage(err) });
    return false;
  }
  const controller = new AbortController();
  signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  const sink = new LocalSink();
  await executeJob(raw, controller, handler, sink, { returnAggregateStream: true });
  if (sink.result === undefined) return false;
  process.stdout.write(sink.result.payload + '\n');
  return sink.result.body.error === undefined;
}
