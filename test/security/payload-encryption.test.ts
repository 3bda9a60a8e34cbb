/**
 * Payload encryption on the real stack: with SLUICE_PAYLOAD_KEY_FILE a job's input and output are
 * ciphertext in its Temporal history and it still completes, read back through the library; a
 * workflow started without a key runs on a keyed daemon; a batch's failed inputs rerun (its start
 * input read back through the codec) and a polled job's progress (its sealed heartbeat) is read; the codec endpoint decodes with its token only; a key file
 * others can read is refused.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { type TestWorkflowEnvironment } from '@temporalio/testing';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchClient, JobClient, payloadDataConverter } from '../../client';
import { ConfigError } from '../../config/errors';
import { loadConfig } from '../../worker/config';
import { startDaemon, type Daemon } from '../../worker/daemon';
import { daemonEnv, temporalEnv } from '../helpers/orchestrator';
import { eventually, testPlatform } from '../helpers/platform';

const key = () => randomBytes(32).toString('base64');

describe('payload encryption (real Temporal, platform and daemon)', () => {
  let env: TestWorkflowEnvironment;
  let platform: Awaited<ReturnType<typeof testPlatform>>;
  let daemon: Daemon;
  let dir: string;
  let keyFile: string;
  let keyed: JobClient;
  let plain: JobClient;
  let batch: BatchClient;
  const token = randomBytes(24).toString('hex');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-payload-keys-'));
    keyFile = join(dir, 'keys.json');
    writeFileSync(keyFile, JSON.stringify({ current: 'k2', keys: { k1: key(), k2: key() } }), { mode: 0o600 });
    writeFileSync(join(dir, 'token'), `${token}\n`, { mode: 0o600 });
    env = await temporalEnv();
    platform = await testPlatform();
    // No client given: the daemon connects its own, with the codec (webhook completions are sealed too).
    daemon = await startDaemon({
      config: loadConfig(
        daemonEnv(platform, env.address, join(dir, 'results'), {
          SLUICE_PAYLOAD_KEY_FILE: keyFile,
          SLUICE_CODEC_ENDPOINT: 'true',
          SLUICE_CODEC_TOKEN_FILE: join(dir, 'token'),
          SLUICE_CODEC_CORS_ORIGIN: 'http://localhost:8233',
        }),
      ),
      connection: env.nativeConnection,
      logger: pino({ level: process.env.SLUICE_TEST_LOG ?? 'silent' }),
    });
    const client = new Client({
      connection: env.connection,
      dataConverter: payloadDataConverter({ SLUICE_PAYLOAD_KEY_FILE: keyFile }),
    });
    keyed = new JobClient({ client, resultsDir: join(dir, 'results') });
    plain = new JobClient({ client: env.client, resultsDir: join(dir, 'results') });
    batch = new BatchClient({ client, resultsDir: join(dir, 'results') });
  });
  afterAll(async () => {
    await daemon?.close();
    await platform?.dispose();
    await env?.teardown();
    await keyed?.close();
    await plain?.close();
    await batch?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Every byte of a workflow's history, as Temporal stores it (protobuf; no codec applied). */
  const historyBytes = async (id: string): Promise<Buffer> => {
    const history = await env.client.workflow.getHandle(id).fetchHistory();
    return Buffer.from(temporal.api.history.v1.History.encode(history).finish());
  };

  it('keeps the input and output out of the history, and the job completes', async () => {
    const marker = `secret-marker-${randomBytes(6).toString('hex')}`;
    const id = await keyed.start({ endpointId: platform.examples.echo!.id, input: { marker } });
    const r = await keyed.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(await keyed.output(r)).toEqual({ marker });
    const bytes = await historyBytes(id);
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.includes(marker)).toBe(false);
    expect(bytes.includes('binary/encrypted')).toBe(true);
  });

  it('runs a workflow started without a key, its plain input read by the keyed daemon', async () => {
    const marker = `plain-marker-${randomBytes(6).toString('hex')}`;
    const id = await plain.start({ endpointId: platform.examples.echo!.id, input: { marker } });
    // The result is sealed by the keyed daemon: read with the key.
    const r = await keyed.result(id);
    expect(r).toMatchObject({ status: 'COMPLETED' });
    expect(await keyed.output(r)).toEqual({ marker });
    // The input was started in plain text (no key), so it is in the history as it was given.
    expect((await historyBytes(id)).includes(marker)).toBe(true);
  });

  it("reruns a batch's failed inputs: the previous run's start input is read through the codec", async () => {
    const marker = `batch-marker-${randomBytes(6).toString('hex')}`;
    const source = join(dir, 'batch-in.jsonl');
    const lines = [
      { marker },
      { kind: 'fail', message: 'no good 1' },
      { marker },
      { kind: 'fail', message: 'no good 3' },
    ];
    writeFileSync(source, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const id = await batch.start({
      endpointId: platform.examples.mixed!.id,
      source,
      outDir: join(dir, 'batch-out'),
      options: { retry: { maxAttempts: 1 } },
    });
    expect((await batch.result(id)).counts.byStatus).toEqual({ COMPLETED: 2, FAILED: 2 });
    // The batch's start input (its source path among it) is sealed in the history.
    expect((await historyBytes(id)).includes('batch-in.jsonl')).toBe(false);
    const rerun = await batch.rerunFailed(id);
    expect(rerun).toMatchObject({ workflowId: id, attempt: 2, inputs: 2, outDir: join(dir, 'batch-out') });
    expect(await batch.result(id)).toMatchObject({
      counts: { total: 4, byStatus: { COMPLETED: 2, FAILED: 2 } },
      retry: { attempt: 2, of: rerun.previousRunId, inputs: 2, byStatus: { FAILED: 2 } },
    });
  });

  it("reads a polled job's progress from its sealed heartbeat", async () => {
    const id = await keyed.start({
      endpointId: platform.examples.sleep!.id,
      input: { ms: 6000, progress: true },
      options: { completion: 'poll', polling: { initialIntervalMs: 200, maxIntervalMs: 300 } },
    });
    const progress = await eventually(async () => (await keyed.state(id)).progress, 30_000, 200);
    expect(progress).toMatchObject({ pct: expect.any(Number) });
    expect((await keyed.result(id)).status).toBe('COMPLETED');
  });

  it('the codec endpoint decodes a sealed payload with the token and refuses without it', async () => {
    const marker = `codec-marker-${randomBytes(6).toString('hex')}`;
    const id = await keyed.start({ endpointId: platform.examples.echo!.id, input: { marker } });
    await keyed.result(id);
    const history = await env.client.workflow.getHandle(id).fetchHistory();
    const sealed = history.events![0]!.workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const body = JSON.stringify({
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(sealed.metadata!).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
          ),
          data: Buffer.from(sealed.data!).toString('base64'),
        },
      ],
    });
    const post = (headers: Record<string, string>) =>
      fetch(`${daemon.url}/codec/decode`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
        body,
      });
    const ok = await post({ authorization: `Bearer ${token}` });
    expect(ok.status).toBe(200);
    const decoded = (await ok.json()) as { payloads: { metadata: Record<string, string>; data: string }[] };
    expect(Buffer.from(decoded.payloads[0]!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(Buffer.from(decoded.payloads[0]!.data, 'base64').toString()).toContain(marker);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    // The browser's preflight (no credentials) learns what the UI's origin may send.
    const preflight = await fetch(`${daemon.url}/codec/decode`, {
      method: 'OPTIONS',
      headers: { origin: 'http://localhost:8233', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/);
    expect((await post({})).status).toBe(401);
    expect((await post({ authorization: `Bearer ${token}x` })).status).toBe(401);
  });

  it('refuses a key file others can read, naming the setting', async () => {
    const open = join(dir, 'open-keys.json');
    writeFileSync(open, JSON.stringify({ current: 'k1', keys: { k1: key() } }));
    chmodSync(open, 0o644);
    const config = loadConfig(
      daemonEnv(platform, env.address, join(dir, 'results'), { SLUICE_PAYLOAD_KEY_FILE: open }),
    );
    const err = await startDaemon({ config, connection: env.nativeConnection }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe('SLUICE_PAYLOAD_KEY_FILE');
    expect((err as Error).message).toMatch(/mode 0644.*owner only/);
  });
});
