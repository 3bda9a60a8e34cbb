/** A batch step's refill (activities/batch/collect.ts): each completion sends the next line, until the file is all sent. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { refill } from '../../activities/batch/collect';
import { type StepSends } from '../../activities/batch/detached';
import { type Submitter } from '../../activities/batch/submitter';
import { emptyStepResult, type StepRequest } from '../../activities/batch/types';
import { type JobRecord, type JobSubmission } from '../../contracts';
import { type InboxReader } from '../../results/batch/inbox';
import { batchInput } from '../../results/batch/locations';

const dir = mkdtempSync(join(tmpdir(), 'sluice-refill-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** An inbox where one more job has always just completed. */
function busyInbox(): InboxReader & { waits: number } {
  let n = 0;
  return {
    waits: 0,
    async wait() {
      this.waits++;
    },
    take: async () => [{ id: `done-${n++}`, status: 'COMPLETED' } as JobRecord],
    position: () => ({}),
  };
}

describe('refill', () => {
  it('ends once the last line is sent, though completions go on arriving and refillMs is not over', async () => {
    const file = join(dir, 'in.jsonl');
    writeFileSync(file, Array.from({ length: 5 }, (_, i) => `{"i":${i}}\n`).join(''));
    const input = batchInput(file);
    const first = await input.readLines({ line: 0, offset: 0 }, 2);
    const res = { ...emptyStepResult(), read: { cursor: first.cursor, eof: first.eof } };
    const sent: number[] = [];
    const sends = {
      sendAll: async (items: { ref: { i: number } }[]) => void sent.push(...items.map((x) => x.ref.i)),
    } as unknown as StepSends;
    const sub = {
      limited: false,
      rateLimited: 0,
      group: () => undefined,
      ungroup: async () => undefined,
    } as unknown as Submitter;
    const req = { seq: 1, collect: { waitMs: 0, min: 1, refillMs: 600_000 } } as StepRequest;
    const inbox = busyInbox();
    const finished: JobRecord[] = [];
    const parsed = (_ref: unknown, text: string) => ({ input: JSON.parse(text) }) as JobSubmission;

    await refill(inbox, input, req, res, sub, sends, finished, parsed, () => false);

    expect(sent).toEqual([2, 3, 4]);
    expect(res.read).toMatchObject({ eof: true });
    // One completion taken per line sent: the step then ends and the workflow waits for the rest.
    expect(inbox.waits).toBe(3);
    expect(finished).toHaveLength(3);
  });
});
