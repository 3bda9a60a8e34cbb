/**
 * bench/store: the results store's operations on a local directory and on S3 (MinIO from the
 * install step, single drive, loopback): ops/s, backend requests per op by kind, bytes per op.
 *
 *   npx tsx bench/store/index.ts [--ops 400] [--concurrency 8] [--json]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readLinePage, type LineCursor } from '../../results/store/line-pages';
import { type ObjectStore } from '../../results/store/object-store';
import { openResultsStore } from '../../results/store/open';
import { startS3Server } from '../../test/helpers/s3';

const { values } = parseArgs({
  options: { ops: { type: 'string' }, concurrency: { type: 'string' }, json: { type: 'boolean' } },
});
const OPS = Number(values.ops ?? 400);
const C = Number(values.concurrency ?? 8);

/** A result of a typical size: a job record's output (~300 bytes). */
const record = (n: number) => ({
  id: `job-${n}`,
  status: 'COMPLETED',
  executionTime: 1234,
  output: { text: 'x'.repeat(200), n },
});

/** One operation kind: `setup` runs untimed, then `run(n)` OPS times, C at a time. */
interface Case {
  name: string;
  what: string;
  setup?(s: ObjectStore): Promise<void>;
  run(s: ObjectStore, n: number, worker: number): Promise<unknown>;
}

/** The followers' positions of 'tail'. */
const at: number[] = [];

const CASES: Case[] = [
  {
    name: 'put',
    what: 'a ~300 B JSON value (big output, submit journal of a job)',
    run: (s, n) => s.put(`put/${n}.json`, record(n)),
  },
  {
    name: 'create',
    what: 'create-if-absent of a new key (step result, journal entry)',
    run: (s, n) => s.create(`create/${n}.json`, record(n)),
  },
  {
    name: 'create (exists)',
    what: 'create-if-absent of an existing key (a retried step)',
    setup: (s) => s.put('exists.json', 1).then(() => undefined),
    run: (s) => s.create('exists.json', 2),
  },
  {
    name: 'get',
    what: 'a ~300 B JSON value',
    setup: (s) => pool(OPS, (n) => s.put(`get/${n}.json`, record(n))),
    run: (s, n) => s.get(`get/${n}.json`),
  },
  {
    name: 'has (absent)',
    what: 'existence of a missing key (first submit of a job)',
    run: (s, n) => s.has(`absent/${n}.json`),
  },
  {
    name: 'append',
    what: 'one stream chunk (~300 B) to a log (C logs, one writer each)',
    run: (s, n, w) => s.append(`append/${w}.jsonl`, [record(n)]),
  },
  {
    name: 'append (2 writers)',
    what: 'the same, two writers per log (two daemons on one log)',
    run: (s, n, w) => s.append(`append2/${w >> 1}.jsonl`, [record(n)]),
  },
  {
    name: 'append x16',
    what: 'a journal group of 16 submissions (~50 B each)',
    run: (s, n, w) =>
      s.append(
        `journal/${w}.jsonl`,
        Array.from({ length: 16 }, (_, k) => ({ i: n * 16 + k, a: 0, id: `job-${n}-${k}`, how: 'submit' })),
      ),
  },
  {
    name: 'putLines x100',
    what: 'a segment of 100 outcome lines (~30 KB)',
    run: (s, n) =>
      s.putLines(
        `seg/${n}.jsonl`,
        Array.from({ length: 100 }, (_, k) => record(n * 100 + k)),
      ),
  },
  {
    name: 'lines (log of 10)',
    what: 'a log written by 10 appends',
    setup: (s) =>
      pool(C, async (k) => {
        for (let g = 0; g < 10; g++) await s.append(`log/${k}.jsonl`, [record(g)]);
      }),
    run: (s, n) => s.lines(`log/${n % C}.jsonl`),
  },
  {
    name: 'tail (1 new)',
    what: 'a follower reading what is new in a log: one append, one tail',
    setup: (s) => {
      at.length = 0;
      return pool(C, (k) => s.append(`tail/${k}.jsonl`, [record(k)]));
    },
    run: async (s, n, w) => {
      await s.append(`tail/${w}.jsonl`, [record(n)]);
      at[w] = (await s.tail(`tail/${w}.jsonl`, at[w] ?? 0)).at;
    },
  },
  {
    name: 'list 1000',
    what: 'one page of 1,000 keys',
    setup: (s) => pool(1000, (n) => s.put(`list/${String(n).padStart(6, '0')}.json`, n)),
    run: (s) => s.list('list/'),
  },
  readPage(),
];

/** Pages of 100 lines of a JSONL input, each read from its cursor (the cursors found untimed). */
function readPage(): Case {
  const cursors: LineCursor[] = [];
  let size = 0;
  return {
    name: 'read page x100',
    what: 'a page of 100 input lines (~30 B each) by ranged reads (256 KiB chunks)',
    async setup(s) {
      cursors.length = 0;
      size = (
        await s.putLines(
          'input.jsonl',
          Array.from({ length: 100 * 50 }, (_, k) => ({ input: { prompt: `p${k}` } })),
        )
      ).bytes;
      for (let c: LineCursor = { line: 0, offset: 0 }, eof = false; !eof;) {
        cursors.push(c);
        ({ cursor: c, eof } = await readLinePage(s, 'input.jsonl', c, 100, { size }));
      }
    },
    run: (s, n) => readLinePage(s, 'input.jsonl', cursors[n % 50]!, 100),
  };
}

/** Runs `fn(n, w)` for n < total on C workers; worker `w` runs n = w, w + C, ... in order. */
async function pool(total: number, fn: (n: number, w: number) => Promise<unknown>): Promise<void> {
  await Promise.all(
    Array.from({ length: Math.min(C, total) }, async (_, w) => {
      for (let n = w; n < total; n += C) await fn(n, w);
    }),
  );
}

interface Row {
  store: string;
  op: string;
  opsPerSec: number;
  requestsPerOp: Record<string, number>;
  bytesWrittenPerOp: number;
  bytesReadPerOp: number;
}

async function measure(label: string, open: (name: string) => ObjectStore): Promise<Row[]> {
  const rows: Row[] = [];
  for (const c of CASES) {
    const s = open(c.name.replace(/[^a-z0-9]+/gi, '-'));
    try {
      await c.setup?.(s);
      const before = JSON.parse(JSON.stringify(s.stats)) as ObjectStore['stats'];
      const t0 = performance.now();
      await pool(OPS, (n, w) => c.run(s, n, w));
      const secs = (performance.now() - t0) / 1000;
      const requestsPerOp: Record<string, number> = {};
      for (const [k, v] of Object.entries(s.stats.requests)) {
        const d = v - (before.requests[k] ?? 0);
        if (d > 0) requestsPerOp[k] = Math.round((d / OPS) * 100) / 100;
      }
      rows.push({
        store: label,
        op: c.name,
        opsPerSec: Math.round(OPS / secs),
        requestsPerOp,
        bytesWrittenPerOp: Math.round((s.stats.bytesWritten - before.bytesWritten) / OPS),
        bytesReadPerOp: Math.round((s.stats.bytesRead - before.bytesRead) / OPS),
      });
    } finally {
      await s.close();
    }
  }
  return rows;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-bench-store-'));
  const s3 = await startS3Server({ bucket: 'bench' });
  try {
    const rows = [
      ...(await measure('local dir', (name) => openResultsStore(join(dir, name)))),
      ...(await measure('S3 (MinIO)', (name) => openResultsStore(s3.url(name), { env: s3.env }))),
    ];
    if (values.json) {
      console.log(JSON.stringify({ ops: OPS, concurrency: C, rows }, null, 2));
      return;
    }
    console.log(`ops per kind ${OPS}, concurrency ${C}\n`);
    console.log(
      '| op | what | store | ops/s | requests/op | bytes written/op | bytes read/op |\n|---|---|---|---|---|---|---|',
    );
    for (const c of CASES) {
      for (const r of rows.filter((x) => x.op === c.name)) {
        const reqs = Object.entries(r.requestsPerOp)
          .map(([k, v]) => `${v} ${k}`)
          .join(', ');
        console.log(
          `| ${c.name} | ${r.store === 'local dir' ? c.what : ''} | ${r.store} | ${r.opsPerSec} | ${reqs} | ${r.bytesWrittenPerOp} | ${r.bytesReadPerOp} |`,
        );
      }
    }
  } finally {
    await s3.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
