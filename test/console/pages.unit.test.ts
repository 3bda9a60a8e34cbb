/** The console's pure parts: pages render what they are given, escaped everywhere; sign-in and samples behave. */
import { describe, expect, it } from 'vitest';
import { type BatchView } from '../../client/batch';
import { type BatchState, type ScalerState } from '../../contracts';
import { consoleApp } from '../../console/app';
import { safeNext, sameSecret, sessionValue, signedIn } from '../../console/auth';
import { consoleContext } from '../../console/context';
import { duration, h } from '../../console/html';
import { batchPage, failuresView } from '../../console/pages/batch';
import { batchListPage, listQuery } from '../../console/pages/batches';
import { endpointListPage } from '../../console/pages/endpoints';
import { jobPage } from '../../console/pages/job';
import { scalerPage } from '../../console/pages/scalers';
import { SeriesBook } from '../../console/series';
import { type ConsoleSources } from '../../console/sources';

const EVIL = '<script>alert(1)</script>"\'&';
const noScript = (html: string) => {
  expect(html).not.toContain('<script>alert');
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
};

function state(over: Partial<BatchState> = {}): BatchState {
  return {
    batchId: EVIL,
    endpointId: EVIL,
    phase: 'running',
    counts: {
      total: 100,
      read: 100,
      submitted: 60,
      inFlight: 8,
      waitingRetry: 0,
      done: 52,
      byStatus: { COMPLETED: 50, FAILED: 2 },
      retries: 1,
      rateLimited: 0,
      duplicatesAvoided: 0,
    },
    waiting: ['window-full'],
    spend: 0.0123,
    submitRate: 3,
    completeRate: 2.5,
    eta: 1_000_000 + 19_200,
    startedAt: 900_000,
    lastErrors: [{ index: 7, error: EVIL }],
    runs: 1,
    options: { concurrency: 8 },
    outDir: `/tmp/${EVIL}`,
    ...over,
  };
}
const view = (s = state()): BatchView => ({ workflowId: `batch/${EVIL}`, workflowStatus: 'RUNNING', state: s });

describe('console pages', () => {
  it("the batch list shows each batch's numbers, escapes its id, links its page and pages by status", () => {
    const html = String(
      batchListPage(
        [{ kind: 'batch', id: EVIL, startTime: 900_000, view: view() }],
        listQuery({ status: 'RUNNING', page: '2' }),
        true,
        1_000_000,
      ),
    );
    noScript(html);
    expect(html).toContain('52 / 100');
    expect(html).toContain('$0.012');
    expect(html).toContain('2.5/s');
    expect(html).toContain('19.2s'); // ETA
    expect(html).toContain(`/batches/${encodeURIComponent(EVIL).replace("'", '&#39;')}`);
    expect(html).toContain('hx-get="/batches/rows?status=RUNNING&amp;page=2"');
    expect(html).toContain('older →');
    expect(listQuery({ status: 'nope', page: '-1' })).toEqual({ page: 1 });
  });

  it('a batch page shows counts by outcome, waits, last errors and the actions of its phase, all escaped', () => {
    const series = new SeriesBook();
    const html = String(batchPage(EVIL, view(), series, 1_000_000));
    noScript(html);
    expect(html).toMatch(/FAILED<\/td><td>2</);
    expect(html).toContain('the concurrency window is full');
    expect(html).toContain('/pause"');
    expect(html).toContain('/cancel"');
    expect(html).not.toContain('/rerun"');
    const paused = String(batchPage('b', view(state({ phase: 'paused' })), series, 1_000_000));
    expect(paused).toContain('/resume"');
    const ended = String(
      batchPage('b', { ...view(state({ phase: 'done' })), workflowStatus: 'COMPLETED' }, series, 1_000_000),
    );
    expect(ended).toContain('/rerun"');
    expect(ended).not.toContain('hx-trigger="every');
  });

  it('failures are grouped by type with their examples and input lines, escaped', () => {
    const html = String(
      failuresView([
        {
          type: EVIL,
          count: 3,
          examples: [
            { index: 4, status: 'FAILED', error: EVIL, remoteJobIds: ['j1'], attempts: 2, input: `{"x":"${EVIL}"}` },
          ],
        },
      ]),
    );
    noScript(html);
    expect(html).toContain('(3 inputs)');
    expect(html).toContain('j1');
    expect(String(failuresView([]))).toContain('no failed inputs');
  });

  it('a scaler page shows its bounds, decisions with reasons and schedules, escaped', () => {
    const s = {
      endpointId: EVIL,
      phase: 'running',
      bounds: { workersMin: 1, workersMax: 5 },
      target: 3,
      load: { at: 1, ok: true, inQueue: 9, inProgress: 2, running: 2, idle: 0, initializing: 1, completed: 0 },
      decisions: [
        {
          at: 1,
          kind: 'scale-up',
          reason: EVIL,
          bounds: { workersMin: 1, workersMax: 5 },
          write: true,
          target: 3,
          recommendation: 3,
          spendCapBinding: false,
          fallbackActive: false,
        },
      ],
      backlogs: [],
      fallbackActive: false,
      healthFailures: 0,
      spendCapBinding: false,
      config: { floor: 0, ceiling: 8, targetPerWorker: 1, intervalMs: 5000, stabilizationWindowMs: 1, cooldownMs: 1 },
      writes: 1,
      ticks: 4,
      runs: 1,
      startedAt: 1,
    } as unknown as ScalerState;
    const html = String(
      scalerPage(EVIL, { workflowId: 'scaler/x', workflowStatus: 'RUNNING', state: s }, [], new SeriesBook()),
    );
    noScript(html);
    expect(html).toContain('scale-up');
    expect(html).toContain('1 – 5');
    expect(html).toContain('/override"');
  });

  it('endpoint and job pages escape what the service and the handler said', () => {
    noScript(
      String(endpointListPage([{ endpoint: { id: 'e1', name: EVIL, workersMin: 0, workersMax: 2 }, error: EVIL }])),
    );
    expect(String(endpointListPage(undefined))).toContain('No service configured');
    const job = String(
      jobPage(
        {
          workflowId: `job/${EVIL}`,
          workflowStatus: 'FAILED',
          failure: EVIL,
          state: {
            phase: 'done',
            endpointId: 'e',
            attempt: 1,
            attempts: [
              {
                number: 1,
                remoteJobId: 'r1',
                how: 'submit',
                status: 'FAILED',
                error: EVIL,
                startedAt: 1,
                endedAt: 2001,
              },
            ],
            streamChunks: 0,
          },
        },
        { output: { text: EVIL }, chunks: [EVIL], chunkCount: 1 },
      ),
    );
    noScript(job.replace('\\u003cscript', '')); // JSON escapes stay escaped as HTML
    expect(job).toContain('r1');
    expect(job).toContain('2.0s');
  });

  it('formats durations for people', () => {
    expect([duration(500), duration(125_000), duration(7_500_000), duration(undefined)]).toEqual([
      '0.5s',
      '2m 05s',
      '2h 05m',
      '–',
    ]);
    expect(String(h`<b>${'<i>'}</b>`)).toBe('<b>&lt;i&gt;</b>');
  });
});

describe('console sign-in', () => {
  it('takes the token or its session cookie, in constant time, and nothing else', () => {
    const token = 'a-long-console-token-1234';
    expect(sameSecret(token, token)).toBe(true);
    expect(sameSecret('short', token)).toBe(false);
    expect(signedIn(token, `Bearer ${token}`, undefined)).toBe(true);
    expect(signedIn(token, 'Bearer nope', undefined)).toBe(false);
    expect(signedIn(token, undefined, sessionValue(token))).toBe(true);
    expect(signedIn(token, undefined, token)).toBe(false);
    expect(sessionValue(token)).not.toContain(token);
    expect([
      safeNext('/batches?x=1'),
      safeNext('//evil.example'),
      safeNext('https://evil.example'),
      safeNext(undefined),
    ]).toEqual(['/batches?x=1', '/', '/', '/']);
  });

  it('with a token, a page redirects to the sign-in, a program gets a 401 JSON, a cross-origin POST is refused', async () => {
    const app = consoleApp(consoleContext({} as ConsoleSources), { token: 'a-long-console-token-1234' });
    const page = await app.request('http://console.test/batches');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/login?next=%2Fbatches');
    const api = await app.request('http://console.test/batches/rows', { headers: { 'hx-request': 'true' } });
    expect(api.status).toBe(401);
    expect(await api.json()).toMatchObject({ error: 'UNAUTHORIZED' });
    const cross = await app.request('http://console.test/login', {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=x',
    });
    expect(cross.status).toBe(403);
    const wrong = await app.request('http://console.test/login', {
      method: 'POST',
      headers: { origin: 'http://console.test', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=nope&next=/batches',
    });
    expect(wrong.status).toBe(401);
    const right = await app.request('http://console.test/login', {
      method: 'POST',
      headers: { origin: 'http://console.test', 'content-type': 'application/x-www-form-urlencoded' },
      body: 'token=a-long-console-token-1234&next=/batches',
    });
    expect(right.status).toBe(303);
    expect(right.headers.get('location')).toBe('/batches');
    expect(right.headers.get('set-cookie')).toMatch(/sluice_console=.+HttpOnly.*SameSite=Strict/);
    const asset = await app.request('http://console.test/assets/htmx.min.js');
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toContain('javascript');
  });
});

describe('console samples', () => {
  it('keeps at most one sample a second per key and the last `capacity`', () => {
    const book = new SeriesBook({ capacity: 3 });
    for (const at of [0, 500, 1000, 2000, 3000, 4000]) book.record('k', at, { v: at });
    expect(book.samples('k').map((s) => s.at)).toEqual([2000, 3000, 4000]);
    expect(book.chartData('k', ['v', 'w'])).toEqual({
      x: [2, 3, 4],
      series: [
        { label: 'v', values: [2000, 3000, 4000] },
        { label: 'w', values: [null, null, null] },
      ],
    });
  });
});

describe('charts with history and pipeline pages', () => {
  it('rebuilds progress over time from the outcomes, bounded, and the chart draws it before the live samples', async () => {
    const { OutcomeHistory } = await import('../../client/outcome-history');
    const hist = new OutcomeHistory(0, 100_000, { points: 10 });
    for (let i = 0; i < 1000; i++) hist.add({ ok: i % 10 !== 0, submittedAt: i * 50, endedAt: i * 50 + 5000 });
    const points = hist.points();
    expect(points.length).toBeLessThanOrEqual(11);
    expect(points[0]).toEqual({ at: 0, completed: 0, failed: 0, inFlight: 0 });
    expect(points.at(-1)).toMatchObject({ at: 100_000, completed: 900, failed: 100, inFlight: 0 });
    expect(points[2]!.inFlight).toBeGreaterThan(0);
    const book = new SeriesBook();
    book.record('batch/x', 150_000, { completed: 950 });
    book.record('batch/x', 50_000, { completed: 1 }); // taken before the history's end: left out
    book.setHistory(
      'batch/x',
      points.map((p) => ({ at: p.at, values: { completed: p.completed } })),
    );
    const x = book.chartData('batch/x', ['completed']).x;
    expect(x[0]).toBe(0);
    expect(x.at(-1)).toBe(150);
    expect(x.length).toBe(points.length + 1);
  });

  it('a pipeline page shows a box per stage with its counts and the actions of its phase, escaped', async () => {
    const { pipelinePage } = await import('../../console/pages/pipeline');
    const st = state();
    const v = {
      workflowId: `pipeline/${EVIL}`,
      workflowStatus: 'RUNNING',
      state: {
        pipelineId: EVIL,
        name: EVIL,
        phase: 'running' as const,
        counts: { total: 100, read: 60, inFlight: 10, done: 50, byStatus: { COMPLETED: 40, FAILED: 4, SKIPPED: 6 } },
        inputDone: false,
        stages: [
          {
            name: EVIL,
            endpointId: EVIL,
            batchId: `batch/pipeline/x/${EVIL}`,
            fed: 60,
            active: 10,
            closed: false,
            batch: st,
          },
        ],
        startedAt: 900_000,
        runs: 1,
        outDir: '/tmp/out',
      },
    };
    const html = String(pipelinePage(EVIL, v, new SeriesBook(), { [EVIL]: 6 }, 1_000_000));
    noScript(html);
    expect(html).toMatch(/<dt>in flight<\/dt><dd>8<\/dd>/);
    expect(html).toMatch(/<dt>skipped<\/dt><dd>6<\/dd>/);
    expect(html).toContain('/pause"');
    expect(html).toContain('/cancel"');
    expect(html).toContain('hx-get="/pipelines/');
  });
});
