/** What the batch step's unit tests share: an input file, a step's request with its defaults, a busy inbox. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll } from 'vitest';
import { type StepRequest } from '../../activities/batch/types';
import { type JobRecord } from '../../contracts';
import { type BatchInbox, type InboxReader } from '../../results/batch/inbox';
import { openResultsStore } from '../../results/store/open';

/** A temporary folder (removed after the file's tests) with `lines` input lines `{"i":N}`; `store(name)` opens a results store in it. */
export function stepFiles(name: string, lines: number) {
  const dir = mkdtempSync(join(tmpdir(), `sluice-${name}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const source = join(dir, 'in.jsonl');
  writeFileSync(source, Array.from({ length: lines }, (_, i) => `{"i":${i}}\n`).join(''));
  return { dir, source, store: (sub: string) => openResultsStore(pathToFileURL(join(dir, sub)).href) };
}

/** A first step's request for `source` (webhooks on; nothing to write, submit, retry, cancel or poll), with `over` on top (an undefined field: left out). */
export function stepRequest(
  workflowId: string,
  source: string,
  over: { [K in keyof StepRequest]?: StepRequest[K] | undefined },
): StepRequest {
  const req: Record<string, unknown> = {
    run: { workflowId, runId: 'r1' },
    seq: 1,
    endpointId: 'ep',
    source,
    inputFormat: 'auto',
    webhook: true,
    write: [],
    read: { from: { line: 0, offset: 0 }, lines: 2, room: 2, keyCounts: {} },
    submit: [],
    retry: [],
    cancel: [],
    poll: [],
    collect: { waitMs: 0, min: 1, refillMs: 600_000 },
    ...over,
  };
  for (const [k, v] of Object.entries(req)) if (v === undefined) delete req[k];
  return req as unknown as StepRequest;
}

/** An inbox where a job of the batch has always just finished (each frees a slot for the refill); `waits`: the step's waits for completions. */
export function busyInbox(): BatchInbox & { waits: number[] } {
  let n = 0;
  const waits: number[] = [];
  const reader: InboxReader = {
    wait: async (_min, ms) => void waits.push(ms),
    take: async () => [{ id: `job-${n++}`, status: 'COMPLETED', output: {} } as JobRecord],
    position: () => ({}),
  };
  return { waits, open: async () => reader };
}
