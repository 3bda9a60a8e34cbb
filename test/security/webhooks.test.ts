/**
 * Webhooks that prove what they carry, through a real daemon, platform, Temporal server and results
 * store: a replayed call changes nothing stored, a forged or another job's call is refused (a job
 * workflow's URL, or a batch submission's naming another job of its batch), an expired URL is
 * refused, an oversized body is refused before it is read, and a body naming its URL's own job is
 * its outcome (SLUICE_WEBHOOK_CONFIRM=binding, the default; `status`: webhook-confirm.test.ts).
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '../../contracts';
import { BatchClient } from '../../client/batch';
import { outputKey, runKey } from '../../contracts/names';
import { WEBHOOK_SECRET_KEY } from '../../worker/webhook-secret';
import { WebhookUrls } from '../../worker/webhook-url';
import { addEndpoint, call, eventually } from '../helpers/platform';
import { tsxCommand } from '../helpers/tsx-command';
import { orchestratorStack } from '../helpers/orchestrator';
import { captureWebhookUrls, postWebhook, remoteJobOnceHooked } from '../helpers/webhook-urls';

type Stack = Awaited<ReturnType<typeof orchestratorStack>>;

describe('webhooks that prove what they carry (real daemon and results store)', () => {
  let s: Stack;
  /** Every job webhook URL the daemon built, by workflow id; every batch submission's, by `<workflow id>#<index>`. */
  let urls: Map<string, string>;
  beforeAll(async () => {
    s = await orchestratorStack();
    urls = captureWebhookUrls(s.daemon.hub);
  });
  afterAll(() => s.dispose());

  const post = postWebhook;
  /** A running job's remote id, once its wait is held. */
  const remoteJobOf = (id: string): Promise<string> => remoteJobOnceHooked(s.env.client, urls, id);
  const status = async (endpointId: string, jobId: string) =>
    (await call(s.platform.url, 'GET', `/v2/${endpointId}/status/${jobId}`)).body as Record<string, unknown>;

  it('a replayed call is acknowledged and changes nothing stored, even with another body', async () => {
    const echo = s.platform.examples.echo!.id;
    const input = { text: 'o'.repeat(4000) };
    const id = await s.sluice.start({ endpointId: echo, input, options: { inlineOutputLimitBytes: 1000 } });
    const r = await s.sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(r.outputRef).toBeDefined();
    const remote = r.attempts[0]!.remoteJobId;
    const handle = s.env.client.workflow.getHandle(id);
    const run = { workflowId: id, runId: (await handle.describe()).runId };
    const file = join(s.resultsDir, outputKey(run, remote, 0));
    const before = { text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs };
    const record = await status(echo, remote);
    expect(record.status).toBe('COMPLETED');
    // The same call again, then one whose body claims another output: both 200 (the service stops retrying).
    const again = await post(urls.get(id)!, record);
    expect(again.status).toBe(200);
    // `replay` when this daemon handled the first call (else the outcome is looked up again, and kept as stored).
    expect(['replay', 'accepted']).toContain(again.body.result);
    expect((await post(urls.get(id)!, { ...record, output: { text: 'tampered' }, retries: 7 })).status).toBe(200);
    expect({ text: readFileSync(file, 'utf8'), mtime: statSync(file).mtimeMs }).toEqual(before);
    expect(await s.sluice.output(await s.sluice.result(id))).toEqual(input);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });

  it("a batch's submissions each get their own URL, and a replay after the batch changes nothing stored", async () => {
    const echo = s.platform.examples.echo!.id;
    const dir = mkdtempSync(join(tmpdir(), 'sluice-hooks-'));
    const source = join(dir, 'in.jsonl');
    writeFileSync(source, [0, 1, 2, 3].map((n) => JSON.stringify({ n })).join('\n') + '\n');
    const batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir, resultsUrl: s.resultsUrl });
    const id = await batch.start({ endpointId: echo, source, outDir: join(dir, 'out') });
    await batch.result(id);
    const own = [0, 1, 2, 3].map((i) => urls.get(`${id}#${i}`));
    expect(new Set(own).size).toBe(4);
    const results = readFileSync(join(dir, 'out', 'results.jsonl'), 'utf8');
    const line = results
      .split('\n')
      .map((l) => JSON.parse(l || '{}') as { index?: number; remoteJobIds?: string[] })
      .find((l) => l.index === 0)!;
    const record = await status(echo, line.remoteJobIds![0]!);
    const run = { workflowId: id, runId: (await s.env.client.workflow.getHandle(id).describe()).runId };
    const inbox = join(s.resultsDir, runKey(run), 'inbox');
    const sizes = (): number[] => readdirSync(inbox).map((f) => statSync(join(inbox, f)).size);
    // The first replay is `replay` when this daemon heard the job's webhook (a job a poll found is
    // looked up again, and the ledger ignores it: no longer in flight); any later one surely is.
    expect((await post(own[0]!, record)).status).toBe(200);
    const before = sizes();
    const again = await post(own[0]!, { ...record, output: { n: 'tampered' } });
    expect(again).toEqual({ status: 200, body: { result: 'replay' } });
    expect(sizes()).toEqual(before);
    expect(readFileSync(join(dir, 'out', 'results.jsonl'), 'utf8')).toBe(results);
    await batch.close();
  });

  it('a forged signature, an expired URL and a URL of the earlier form are refused with a JSON reason', async () => {
    const id = await s.sluice.start({ endpointId: s.platform.examples.echo!.id, input: { n: 1 } });
    await s.sluice.result(id);
    const url = urls.get(id)!;
    const record = { id: 'whatever', status: 'COMPLETED', output: 1 };
    const forged = await post(`${url.slice(0, -4)}AAAA`, record);
    expect(forged).toEqual({
      status: 403,
      body: { error: 'webhook signature does not match', code: 'WEBHOOK_FORGED' },
    });
    // Signed with the daemons' own secret, but issued long ago: past its ttl and retention.
    const { secret } = JSON.parse(readFileSync(join(s.resultsDir, WEBHOOK_SECRET_KEY), 'utf8')) as { secret: string };
    const old = new WebhookUrls(secret, s.daemon.url);
    const handle = s.env.client.workflow.getHandle(id);
    const run = { workflowId: id, runId: (await handle.describe()).runId };
    const expired = await post(old.job(run, 'ep', 1, 1000, 10_000, Date.now() - 3_600_000), record);
    expect(expired.status).toBe(410);
    expect(expired.body).toMatchObject({ code: 'WEBHOOK_EXPIRED', error: expect.stringMatching(/expired at/) });
    const legacy = await post(
      `${s.daemon.url}/hooks/${Buffer.from(`${id}\nrun`).toString('base64url')}/1000/sig`,
      record,
    );
    expect(legacy).toMatchObject({ status: 410, body: { code: 'WEBHOOK_LEGACY' } });
  });

  it("another job's URL is refused, and the job it names ends with its own outcome", async () => {
    const done = await s.sluice.start({ endpointId: s.platform.examples.echo!.id, input: { first: true } });
    await s.sluice.result(done);
    const sleep = s.platform.examples.sleep!.id;
    const running = await s.sluice.start({ endpointId: sleep, input: { ms: 3000 } });
    const remote = await remoteJobOf(running);
    const claim = { id: remote, status: 'COMPLETED', output: { forged: true } };
    const refused = await post(urls.get(done)!, claim);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'OTHER_JOB' });
    expect(await s.sluice.result(running)).toMatchObject({ status: 'COMPLETED', output: { slept: 3000 } });
  });

  it("a body naming its URL's own job is its outcome, as it is: no /status call (the default)", async () => {
    const sleep = s.platform.examples.sleep!.id;
    const options = { retry: { maxAttempts: 1 } };
    const a = await s.sluice.start({ endpointId: sleep, input: { ms: 3000 }, options });
    const b = await s.sluice.start({ endpointId: sleep, input: { ms: 3000 }, options });
    const [ra, rb] = [await remoteJobOf(a), await remoteJobOf(b)];
    // Both still run on the service: the worker holding each URL reports its own job's outcome.
    expect(await post(urls.get(a)!, { id: ra, status: 'COMPLETED', output: { reported: 'a' } })).toEqual({
      status: 200,
      body: { result: 'accepted' },
    });
    expect(await post(urls.get(b)!, { id: rb, status: 'FAILED', error: 'reported failure' })).toEqual({
      status: 200,
      body: { result: 'accepted' },
    });
    expect(await s.sluice.result(a)).toMatchObject({ status: 'COMPLETED', output: { reported: 'a' } });
    expect(await s.sluice.result(b)).toMatchObject({ status: 'FAILED' });
    expect((await status(sleep, ra)).status).not.toBe('COMPLETED');
  });

  it("a batch submission's URL naming another in-flight job of its batch is refused, and changes nothing", async () => {
    const sleep = s.platform.examples.sleep!.id;
    const dir = mkdtempSync(join(tmpdir(), 'sluice-hooks-'));
    const source = join(dir, 'in.jsonl');
    writeFileSync(source, [0, 1].map(() => JSON.stringify({ ms: 3000 })).join('\n') + '\n');
    const batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir, resultsUrl: s.resultsUrl });
    const id = await batch.start({ endpointId: sleep, source, outDir: join(dir, 'out') });
    const run = { workflowId: id, runId: (await s.env.client.workflow.getHandle(id).describe()).runId };
    // The jobs the batch's steps sent, as their journals hold them.
    const lines = (folder: string, prefix: string): string[] =>
      existsSync(folder)
        ? readdirSync(folder)
            .filter((f) => f.startsWith(prefix))
            .flatMap((f) => readFileSync(join(folder, f), 'utf8').split('\n').filter(Boolean))
        : [];
    const steps = join(s.resultsDir, runKey(run), 'steps');
    let sent: { i: number; id: string }[] = [];
    await eventually(() => {
      sent = lines(steps, 'submit-').map((l) => JSON.parse(l) as { i: number; id: string });
      return sent.length === 2 && urls.has(`${id}#0`);
    });
    const other = sent.find((j) => j.i === 1)!.id;
    const inbox = join(s.resultsDir, runKey(run), 'inbox');
    const inboxText = (): string => lines(inbox, '').join('\n');
    const refused = await post(urls.get(`${id}#0`)!, { id: other, status: 'COMPLETED', output: { forged: true } });
    expect(refused).toMatchObject({ status: 403, body: { code: 'OTHER_JOB' } });
    expect(inboxText()).not.toContain('forged');
    await batch.result(id);
    const results = readFileSync(join(dir, 'out', 'results.jsonl'), 'utf8');
    expect(results).not.toContain('forged');
    expect(results.match(/"slept":3000/g)).toHaveLength(2);
    await batch.close();
  });

  it('a body larger than the cap is refused with 413 before it is read: by its Content-Length, or as it grows', async () => {
    const id = await s.sluice.start({ endpointId: s.platform.examples.echo!.id, input: { n: 2 } });
    await s.sluice.result(id);
    const { pathname } = new URL(urls.get(id)!);
    const port = Number(new URL(s.daemon.url).port);
    // Declared too large: the answer comes although not one byte of the body is sent.
    const declared = await rawPost(port, pathname, { 'content-length': String(LIMITS.webhookBodyBytes + 1) }, 0);
    expect(declared.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(declared.answer).toContain('"code":"WEBHOOK_TOO_LARGE"');
    expect(declared.sent).toBe(0);
    // Chunked, no length: refused once it passes the cap, long before the client's 3x the cap is sent.
    const grown = await rawPost(port, pathname, { 'transfer-encoding': 'chunked' }, 3 * LIMITS.webhookBodyBytes);
    expect(grown.answer).toMatch(/^HTTP\/1\.1 413/);
    expect(grown.sent).toBeLessThan(2 * LIMITS.webhookBodyBytes);
  });

  it('a job whose output is over the cap still completes: its webhook is refused 413, its wait polled /status at once', async () => {
    const endpointId = addEndpoint(s.platform, {
      name: 'big-output',
      command: tsxCommand(join(__dirname, 'fixtures', 'big-output-worker.ts')),
      workersMin: 1,
      workersMax: 1,
    }).id;
    const id = await s.sluice.start({ endpointId, input: { mb: 25 } });
    const r = await s.sluice.result(id);
    expect(r.status).toBe('COMPLETED');
    expect(((await s.sluice.output(r)) as string).length).toBe(25 * 1024 * 1024);
    const refused = (await s.daemon.metrics.registry.getSingleMetric('sluice_webhooks_total')!.get()).values.find(
      (v) => v.labels.result === 'too_large',
    );
    expect(refused?.value).toBeGreaterThanOrEqual(1);
  });
});

/**
 * Sends a POST's headers, then up to `bodyBytes` of body (1 MB chunks, chunked encoding when asked)
 * until the server answers or closes; returns the answer and how many body bytes were written.
 */
function rawPost(
  port: number,
  path: string,
  headers: Record<string, string>,
  bodyBytes: number,
): Promise<{ answer: string; sent: number }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let over = false;
    const finish = (): void => {
      if (over) return;
      over = true;
      socket.destroy();
      resolve({ answer, sent });
    };
    const chunked = headers['transfer-encoding'] === 'chunked';
    const data = Buffer.alloc(1024 * 1024, 'a');
    const chunk = chunked
      ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')])
      : data;
    const pump = (): void => {
      while (!over && answer === '' && sent < bodyBytes) {
        sent += data.length;
        if (!socket.write(chunk)) return void socket.once('drain', pump);
      }
    };
    socket.on('data', (d: Buffer) => {
      answer += d.toString('latin1');
      if (answer.includes('\r\n\r\n') && answer.includes('}')) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.on('connect', () => {
      const head = Object.entries({ host: `127.0.0.1:${port}`, ...headers })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      pump();
    });
    setTimeout(finish, 60_000).unref();
  });
}
