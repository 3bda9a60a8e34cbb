/**
 * Traces on the real stack: a daemon with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a small OTLP/HTTP
 * receiver (port 0, decoding the JSON the exporter sends) runs a job and a stream job; each job's
 * trace holds its workflow, its submit and its wait (the webhook wait, or the stream's drain) and
 * the queue calls inside them, under one trace id, each call the child of its activity.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { JobClient } from '../../client/job';
import { clientTracing } from '../../client/tracing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLocal } from '../helpers/listen';
import { orchestratorStack } from '../helpers/orchestrator';
import { eventually } from '../helpers/platform';
import { historyFromJSON } from '../workflows/history-json';
import { workerTracing } from '../../worker/tracing';

interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

/** An OTLP/HTTP trace receiver: every span of every `POST /v1/traces` (JSON encoding). */
async function otlpReceiver() {
  const spans: Span[] = [];
  const services = new Set<string>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !req.headers['content-type']?.includes('json')) {
        res.writeHead(415).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: Span[] }[];
        }[];
      };
      for (const rs of body.resourceSpans) {
        const name = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue;
        if (name) services.add(name);
        for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return { spans, services, ...(await listenLocal(server)) };
}

/** The spans of the trace that holds a span named `name`. */
function traceWith(spans: Span[], name: string): Span[] {
  const one = spans.find((s) => s.name === name);
  return one ? spans.filter((s) => s.traceId === one.traceId) : [];
}

describe('traces (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let s: Awaited<ReturnType<typeof orchestratorStack>>;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    s = await orchestratorStack({ daemon: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
  });
  afterAll(async () => {
    await s?.dispose();
    await receiver?.close();
  });

  it("show a job's workflow, submit, wait and drain, and their queue calls, under one trace id", async () => {
    const plain = await s.sluice.start({ endpointId: s.platform.examples.echo!.id, input: { hello: 'trace' } });
    expect((await s.sluice.result(plain)).status).toBe('COMPLETED');
    const streamed = await s.sluice.start({
      endpointId: s.platform.examples.stream!.id,
      input: { chunks: 3 },
      options: { stream: true },
    });
    expect((await s.sluice.result(streamed)).status).toBe('COMPLETED');

    // The webhook wait: submit and wait in the trace of the workflow that waited.
    // Spans are exported in batches, each when it ends: wait until every one asserted is in.
    const names = (t: Span[]) => new Set(t.map((x) => x.name));
    const hasAll = (t: Span[], wanted: string[]) => wanted.every((n) => names(t).has(n));
    const forWait = ['RunWorkflow:jobWorkflow', 'RunActivity:submitJob', 'RunActivity:awaitCompletion', 'queue run'];
    const waited = (await eventually(() => {
      const t = traceWith(receiver.spans, 'RunActivity:awaitCompletion');
      return hasAll(t, forWait) ? t : false;
    }, 60_000)) as Span[];
    for (const n of forWait) expect(names(waited).has(n), n).toBe(true);
    // The submission's queue call is the child of the submit activity.
    const byId = new Map(waited.map((x) => [x.spanId, x]));
    expect(byId.get(waited.find((x) => x.name === 'queue run')!.parentSpanId!)?.name).toBe('RunActivity:submitJob');

    // The stream job: submit and drain (its wait), the drain's /stream calls inside it.
    const forDrain = [
      'RunWorkflow:jobWorkflow',
      'RunActivity:submitJob',
      'RunActivity:drainStream',
      'queue run',
      'queue stream',
    ];
    const drained = (await eventually(() => {
      const t = traceWith(receiver.spans, 'RunActivity:drainStream');
      return hasAll(t, forDrain) ? t : false;
    }, 60_000)) as Span[];
    for (const n of forDrain) expect(names(drained).has(n), n).toBe(true);
    const inDrain = new Map(drained.map((x) => [x.spanId, x]));
    expect(inDrain.get(drained.find((x) => x.name === 'queue stream')!.parentSpanId!)?.name).toBe(
      'RunActivity:drainStream',
    );
    // Two jobs, two traces.
    expect(drained[0]!.traceId).not.toBe(waited[0]!.traceId);
    expect(receiver.services).toContain('sluice-daemon');
  });

  it("join the caller's trace: the library's client interceptors start it, the daemon's spans follow", async () => {
    const t = clientTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    expect(t.interceptors.workflow).toHaveLength(1);
    const client = new Client({ connection: s.env.client.connection, interceptors: t.interceptors });
    const jobs = new JobClient({ client, resultsDir: s.resultsDir });
    const id = await jobs.start({ endpointId: s.platform.examples.echo!.id, input: { traced: 'from the client' } });
    expect((await jobs.result(id)).status).toBe('COMPLETED');
    await jobs.close();
    const trace = (await eventually(() => {
      const all = traceWith(receiver.spans, 'StartWorkflow:jobWorkflow');
      const names = new Set(all.map((x) => x.name));
      return names.has('RunWorkflow:jobWorkflow') && names.has('RunActivity:awaitCompletion') ? all : false;
    }, 30_000)) as Span[];
    for (const n of ['StartWorkflow:jobWorkflow', 'RunWorkflow:jobWorkflow', 'RunActivity:submitJob', 'queue run'])
      expect(new Set(trace.map((x) => x.name)).has(n), n).toBe(true);
    // Off without the variables: no interceptor.
    expect(clientTracing({}).interceptors.workflow).toEqual([]);
  });

  it('leave recorded histories replaying: the traced bundle (workflow interceptors) issues the same commands', async () => {
    const { options } = await workerTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    const root = join(__dirname, '..', 'workflows', 'histories');
    for (const kind of ['job', 'batch', 'scaler']) {
      const files = readdirSync(join(root, kind))
        .filter((f) => f.endsWith('.json'))
        .sort();
      const histories = files.map((f) => {
        const history = historyFromJSON(JSON.parse(readFileSync(join(root, kind, f), 'utf8')));
        return { workflowId: history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId || f, history };
      });
      const errors: string[] = [];
      let n = 0;
      for await (const r of Worker.runReplayHistories(options, histories)) {
        if (r.error) errors.push(`${kind}/${files[n]}: ${r.error.message}`);
        n++;
      }
      expect(n).toBe(files.length);
      expect(errors).toEqual([]);
    }
  });
});
