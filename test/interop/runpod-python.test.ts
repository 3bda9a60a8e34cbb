/**
 * Interop: the official PyPI `runpod` package (1.12.0, in .tools/venv), unchanged.
 * a) Its `runpod.Endpoint` client against the platform's queue API.
 * b) Its worker SDK (`runpod.serverless.start`) running as the platform's worker pods.
 */
import { join } from 'node:path';
import runpodSdk from 'runpod-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Endpoint } from '../../contracts';
import { addEndpoint, call, eventually, exampleCommand, testPlatform, waitForStatus } from '../helpers/platform';
import { isolatedHome, podLogs, pyDir, requireVenvPython, runPython } from './support';

type TestPlatform = Awaited<ReturnType<typeof testPlatform>>;

const WORKER_MS = 60_000;

let platform: TestPlatform;
let home: ReturnType<typeof isolatedHome>;
let python: string;
let workers: Record<'plain' | 'stream' | 'fail' | 'progress', Endpoint>;

/** Runs a scenario of py/client.py against the platform; resolves with its JSON summary. */
const client = (scenario: string, args: Record<string, unknown>): Promise<any> =>
  runPython('client.py', [scenario, JSON.stringify(args)], {
    HOME: home.dir,
    RUNPOD_ENDPOINT_BASE_URL: `${platform.url}/v2`,
    INTEROP_API_KEY: platform.apiKey,
  });

const exampleId = (name: 'echo' | 'stream' | 'sleep'): string => {
  const e = platform.examples[name];
  if (!e) throw new Error(`example endpoint ${name} missing`);
  return e.id;
};

/** Runs `fn`; on failure the error also shows the logs of the endpoint's pods. */
async function explained<T>(endpointId: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${podLogs(platform, endpointId)}`);
  }
}

beforeAll(async () => {
  // Fails every test of the file (no silent skip) when `npm install` did not create the venv.
  python = requireVenvPython();
  home = isolatedHome();
  platform = await testPlatform();
  // Python workers need a few seconds to start: keep one warm per endpoint from the start, so
  // they boot while the client tests run.
  const worker = (name: string, script: string): Endpoint =>
    addEndpoint(platform, { name, command: [python, '-u', join(pyDir, script)], workersMin: 1, workersMax: 1 });
  workers = {
    plain: worker('py-plain', 'plain_worker.py'),
    stream: worker('py-stream', 'stream_worker.py'),
    fail: worker('py-fail', 'fail_worker.py'),
    progress: worker('py-progress', 'progress_worker.py'),
  };
});

afterAll(async () => {
  await platform?.dispose();
  home?.dispose();
});

describe('runpod (PyPI) Endpoint client against the platform', () => {
  it('run + status + output', async () => {
    const input = { text: 'héllo from python', n: 7, nested: { ok: true, list: [1, 2] } };
    const r = await client('run_status', { endpoint: exampleId('echo'), input });
    expect(r.runpod_version).toBe('1.12.0');
    expect(r.base).toBe(`${platform.url}/v2`);
    expect(['IN_QUEUE', 'IN_PROGRESS', 'COMPLETED']).toContain(r.first_status);
    expect(r.status).toBe('COMPLETED');
    // run() wraps a dict without an `input` key as {"input": ...}: the handler saw `input`.
    expect(r.output).toEqual(input);
    const s = await call(platform.url, 'GET', `/v2/${exampleId('echo')}/status/${r.id}`);
    expect(s.body).toMatchObject({ id: r.id, status: 'COMPLETED', output: input });
  });

  it('run_sync returns the output', async () => {
    const input = { sync: 'yes', values: [3, 2, 1] };
    const r = await client('run_sync', { endpoint: exampleId('echo'), input });
    expect(r.output).toEqual(input);
  });

  it('job.stream() yields every chunk output once, in order, and stops when the job completes', async () => {
    const r = await client('stream', { endpoint: exampleId('stream'), input: { chunks: 5, delayMs: 300 } });
    // The Python client yields `chunk["output"]`; a chunk handed out twice would repeat here.
    expect(r.chunks).toEqual([0, 1, 2, 3, 4].map((index) => ({ index, text: `chunk ${index}` })));
    expect(r.status).toBe('COMPLETED');
  });

  it('job.cancel() stops a running job', async () => {
    const r = await client('cancel', { endpoint: exampleId('sleep'), input: { ms: 60_000 } });
    expect(r.cancel).toMatchObject({ id: r.id, status: 'CANCELLED' });
    expect(r.status).toBe('CANCELLED');
    const s = await call(platform.url, 'GET', `/v2/${exampleId('sleep')}/status/${r.id}`);
    expect(s.body.status).toBe('CANCELLED');
  });

  it('health() reports numbers that match the jobs run, and a wrong key raises', async () => {
    const sync = await call(platform.url, 'POST', `/v2/${exampleId('echo')}/runsync`, {
      body: { input: { before: 'health' } },
    });
    expect(sync.body.status).toBe('COMPLETED');
    const r = await client('health', { endpoint: exampleId('echo') });
    const { jobs, workers: w } = r.health;
    for (const n of [...Object.values(jobs), ...Object.values(w)]) {
      expect(Number.isInteger(n)).toBe(true);
      expect(n).toBeGreaterThanOrEqual(0);
    }
    // At least the job just run completed on echo; nothing failed or waits.
    expect(jobs.completed).toBeGreaterThanOrEqual(1);
    expect(jobs).toMatchObject({ failed: 0, inQueue: 0, inProgress: 0 });
    expect(w.running).toBe(0);
    expect(w.idle).toBeGreaterThanOrEqual(1);
    expect(r.bad_key).toMatch(/^RuntimeError: /);
  });

  it('AsyncioEndpoint: run + output + status, and async stream()', async () => {
    const input = { via: 'asyncio', list: ['x', 'y'] };
    const r = await client('asyncio_run', {
      endpoint: exampleId('echo'),
      input,
      stream_endpoint: exampleId('stream'),
      stream_input: { chunks: 3, delayMs: 200 },
    });
    expect(r.status).toBe('COMPLETED');
    expect(r.output).toEqual(input);
    expect(r.streamed).toEqual([0, 1, 2].map((index) => ({ index, text: `chunk ${index}` })));
  });

  it('purge_queue() removes the queued jobs', async () => {
    const e = addEndpoint(platform, { name: 'py-purge', command: exampleCommand('echo'), workersMax: 0 });
    const r = await client('purge', { endpoint: e.id, count: 3 });
    expect(r.ids).toHaveLength(3);
    expect(r.before.jobs.inQueue).toBe(3);
    expect(r.purge).toEqual({ removed: 3, status: 'completed' });
    expect(r.after.jobs.inQueue).toBe(0);
    for (const id of r.ids) {
      // Removed: no longer queued, never run (gone, or finished without a result).
      expect(r.statuses[id]).not.toBe('IN_QUEUE');
      expect(r.statuses[id]).not.toBe('COMPLETED');
    }
  });
});

describe('runpod (PyPI) worker SDK as worker pods', () => {
  it('a plain handler: the job completes with the transformed input', { timeout: 90_000 }, async () => {
    const e = workers.plain;
    const run = await call(platform.url, 'POST', `/v2/${e.id}/run`, {
      body: { input: { text: 'serverless on sluice ✓ été' } },
    });
    expect(run.status).toBe(200);
    const done = await explained(e.id, () =>
      waitForStatus(platform.url, e.id, run.body.id, ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'], WORKER_MS),
    );
    expect(done.status).toBe('COMPLETED');
    expect(done.output).toMatchObject({
      upper: 'SERVERLESS ON SLUICE ✓ ÉTÉ',
      length: 26,
      words: ['serverless', 'on', 'sluice', '✓', 'été'],
      job_id: run.body.id,
    });
    // The worker id the SDK reports is the pod the platform started.
    expect(platform.pool.podsOf(e.id).map((p) => p.id)).toContain(done.output.worker_id);

    // runsync works the same way against a Python worker.
    const sync = await call(platform.url, 'POST', `/v2/${e.id}/runsync?wait=30000`, {
      body: { input: { text: 'again' } },
    });
    expect(sync.status).toBe(200);
    expect(sync.body).toMatchObject({ status: 'COMPLETED', output: { upper: 'AGAIN', length: 5 } });
  });

  it('a generator handler: chunks are streamed once each, in order, and aggregated', { timeout: 90_000 }, async () => {
    const e = workers.stream;
    const ep = runpodSdk(platform.apiKey, { baseUrl: `${platform.url}/v2` }).endpoint(e.id)!;
    const { id } = await ep.run({ input: { chunks: 6, delay: 0.1 } });
    const expected = [0, 1, 2, 3, 4, 5].map((index) => ({ index, text: `py chunk ${index}` }));

    const chunks: any[] = [];
    await explained(e.id, async () => {
      const deadline = Date.now() + WORKER_MS;
      for await (const chunk of ep.stream(id)) {
        chunks.push(chunk);
        if (Date.now() > deadline)
          throw new Error(`stream not finished after ${WORKER_MS} ms (got ${chunks.length} chunks)`);
      }
    });
    expect(chunks.map((c) => c.output)).toEqual(expected);

    const done = await ep.status(id);
    expect(done.status).toBe('COMPLETED');
    // return_aggregate_stream: the final job-done carries all chunks as the output.
    expect((done as { output?: unknown }).output).toEqual(expected);
  });

  it('a handler that raises: the job FAILS with an error naming the message', { timeout: 90_000 }, async () => {
    const e = workers.fail;
    const run = await call(platform.url, 'POST', `/v2/${e.id}/run`, { body: { input: { reason: 'bad input 42' } } });
    const done = await explained(e.id, () =>
      waitForStatus(platform.url, e.id, run.body.id, ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'], WORKER_MS),
    );
    expect(done.status).toBe('FAILED');
    expect(typeof done.error).toBe('string');
    expect(done.error).toContain('python handler refused: bad input 42');
    // The SDK sends a JSON-encoded description of the exception; it reaches the client verbatim.
    const info = JSON.parse(done.error as string);
    expect(info).toMatchObject({
      error_type: "<class 'ValueError'>",
      error_message: 'python handler refused: bad input 42',
      runpod_version: '1.12.0',
    });
    expect(platform.pool.podsOf(e.id).map((p) => p.id)).toContain(info.worker_id);
  });

  it(
    'progress_update is the output of the IN_PROGRESS status, then the result replaces it',
    { timeout: 90_000 },
    async () => {
      const e = workers.progress;
      const run = await call(platform.url, 'POST', `/v2/${e.id}/run`, { body: { input: { hold: 2 } } });
      const seen = await explained(e.id, () =>
        eventually(
          async () => {
            const s = await call(platform.url, 'GET', `/v2/${e.id}/status/${run.body.id}`);
            if (s.body?.status !== 'IN_PROGRESS' && s.body?.status !== 'IN_QUEUE')
              throw new Error(`job is ${JSON.stringify(s.body)}`);
            return s.body.status === 'IN_PROGRESS' && s.body.output !== undefined ? s.body : undefined;
          },
          WORKER_MS,
          25,
        ),
      );
      expect(seen.output).toEqual({ phase: 'halfway', pct: 50 });

      const done = await waitForStatus(
        platform.url,
        e.id,
        run.body.id,
        ['COMPLETED', 'FAILED', 'CANCELLED', 'TIMED_OUT'],
        WORKER_MS,
      );
      expect(done.status).toBe('COMPLETED');
      expect(done.output).toEqual({ phase: 'done', pct: 100, held: 2 });
    },
  );

  it(
    'cancel stops a running async handler through the SDK job-stop channel, even right after the hand-over',
    { timeout: 90_000 },
    async () => {
      const e = workers.progress;
      // A stop order that reaches the SDK before its handler task exists is ignored by the SDK
      // ("No in-progress job"); the platform re-sends it until the worker's ping stops listing the
      // job, so cancelling at the first sight of IN_PROGRESS must still stop the 120 s handler.
      for (let i = 0; i < 3; i++) {
        const long = await call(platform.url, 'POST', `/v2/${e.id}/run`, { body: { input: { hold: 120 } } });
        await explained(e.id, () => waitForStatus(platform.url, e.id, long.body.id, ['IN_PROGRESS'], WORKER_MS));
        const cancelled = await call(platform.url, 'POST', `/v2/${e.id}/cancel/${long.body.id}`);
        expect(cancelled.body).toEqual({ id: long.body.id, status: 'CANCELLED' });
        // The endpoint has one worker with concurrency 1: the next job runs only if the SDK really
        // stopped the 120 s handler (and sent no result that could flip the cancelled job).
        const started = Date.now();
        const next = await call(platform.url, 'POST', `/v2/${e.id}/runsync?wait=30000`, {
          body: { input: { hold: 0.1 } },
        });
        expect(next.body).toMatchObject({ status: 'COMPLETED', output: { phase: 'done', held: 0.1 } });
        expect(Date.now() - started).toBeLessThan(30_000);
        const after = await call(platform.url, 'GET', `/v2/${e.id}/status/${long.body.id}`);
        expect(after.body.status).toBe('CANCELLED');
        expect(next.body.workerId).toBe(after.body.workerId);
      }
    },
  );

  it(
    'an idle Python worker that is scaled in exits at once, not after the kill grace time',
    { timeout: 120_000 },
    async () => {
      const e = workers.fail;
      const pod = (await eventually(() => platform.pool.podsOf(e.id).find((p) => p.phase === 'ready'), WORKER_MS))!;
      platform.registry.saveEndpoint({ ...platform.registry.endpoint(e.id)!, workersMin: 0, workersMax: 0 });
      await eventually(() => pod.phase === 'exited', 60_000, 20);
      // The stock SDK exits only once its pending job-take and job-stop return: they are answered at once.
      // Exited on its own (code 0, no signal), not killed at the end of the test platform's 3 s grace: the
      // exit says so, whatever the machine's load (a wall-clock bound here would flake).
      expect(pod.exit).toMatchObject({ code: 0, signal: null });
    },
  );
});
