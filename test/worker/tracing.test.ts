/**
 * Traces on the real stack: a daemon with OTEL_EXPORTER_OTLP_ENDPOINT pointing at a small OTLP/HTTP
 * receiver (port 0, decoding the JSON the exporter sends) runs a job and a stream job; each job's
 * trace holds its workflow, its submit and its wait (the webhook wait, or the stream's drain) and
 * the queue calls inside them, under one trace id, each call the child of its activity.
 */
import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenLocal } from '../helpers/listen';
import { orchestratorStack } from '../helpers/orchestrator';
import { eventually } from '../helpers/platform';

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
    const waited = (await eventually(() => {
      const t = traceWith(receiver.spans, 'RunActivity:awaitCompletion');
      return t.some((x) => x.name === 'queue run') ? t : false;
    }, 30_000)) as Span[];
    const names = (t: Span[]) => new Set(t.map((x) => x.name));
    for (const n of ['RunWorkflow:jobWorkflow', 'RunActivity:submitJob', 'RunActivity:awaitCompletion', 'queue run'])
      expect(names(waited).has(n), n).toBe(true);
    // The submission's queue call is the child of the submit activity.
    const byId = new Map(waited.map((x) => [x.spanId, x]));
    expect(byId.get(waited.find((x) => x.name === 'queue run')!.parentSpanId!)?.name).toBe('RunActivity:submitJob');

    // The stream job: submit and drain (its wait), the drain's /stream calls inside it.
    const drained = (await eventually(() => {
      const t = traceWith(receiver.spans, 'RunActivity:drainStream');
      return t.some((x) => x.name === 'queue stream') && t.some((x) => x.name === 'queue run') ? t : false;
    }, 30_000)) as Span[];
    for (const n of [
      'RunWorkflow:jobWorkflow',
      'RunActivity:submitJob',
      'RunActivity:drainStream',
      'queue run',
      'queue stream',
    ])
      expect(names(drained).has(n), n).toBe(true);
    const inDrain = new Map(drained.map((x) => [x.spanId, x]));
    expect(inDrain.get(drained.find((x) => x.name === 'queue stream')!.parentSpanId!)?.name).toBe(
      'RunActivity:drainStream',
    );
    // Two jobs, two traces.
    expect(drained[0]!.traceId).not.toBe(waited[0]!.traceId);
    expect(receiver.services).toContain('sluice-daemon');
  }, 90_000);
});
