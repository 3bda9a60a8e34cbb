/** Watching a batch until it ends: a progress bar on a terminal, a plain line every few seconds elsewhere, JSON lines for machines; Ctrl-C stops only the watching. */
import { Presets, SingleBar } from 'cli-progress';
import { type BatchState } from '../../../contracts';
import { type BatchView } from '../../batch';
import { type BatchViews } from '../../batch-status';
import {
  batchExitCode,
  batchView,
  doneOfTotal,
  etaText,
  failedCount,
  progressLine,
  rateText,
  spendText,
  statusTable,
} from './output';
import { onCtrlC } from '../ctrl-c';
import { EXIT_CODES } from '../exit-codes';

export interface BatchWatchOptions {
  json: boolean;
  /** Milliseconds between plain (or JSON) lines. */
  intervalMs: number;
  /** A progress bar (on stderr) instead of plain lines. */
  tty: boolean;
}

/** Query the batch this often (and redraw the bar). */
const POLL_MS = 1000;

/** The bar: done of total, then failed, in flight, rate, ETA and spend (ETA and rate are the workflow's). */
function progressBar() {
  const bar = new SingleBar(
    {
      format: '{bar} {done} done | {failed} failed | {inFlight} in flight | {rate}/s | ETA {etaText} | {spend}{phase}',
      hideCursor: true,
      barsize: 30,
      etaBuffer: 1,
    },
    Presets.shades_classic,
  );
  const payload = (s: BatchState) => ({
    done: doneOfTotal(s),
    failed: failedCount(s),
    inFlight: s.counts.inFlight,
    rate: rateText(s.completeRate),
    etaText: etaText(s),
    spend: spendText(s.spend),
    phase: s.phase === 'running' ? '' : ` | ${s.phase}`,
  });
  let started = false;
  return {
    show(s: BatchState): void {
      const total = Math.max(1, s.counts.total ?? s.counts.read);
      if (!started) bar.start(total, s.counts.done, payload(s));
      else {
        bar.setTotal(total);
        bar.update(s.counts.done, payload(s));
      }
      started = true;
    },
    stop(): void {
      if (started) bar.stop();
      started = false;
    },
  };
}

/**
 * Shows the batch until it ends, then its status table (or, with `json`, its final view as the
 * last JSON line); returns the batch's exit code, or 130 on Ctrl-C (the batch keeps running).
 */
export async function watchBatch(batch: BatchViews, workflowId: string, o: BatchWatchOptions): Promise<number> {
  const ctrlC = onCtrlC();
  const bar = o.tty && !o.json ? progressBar() : undefined;
  let lastLine = 0;
  let lastJson = '';
  // The end wakes the loop at once (Temporal's long poll of the result), not at the next poll: a
  // small batch is not kept waiting up to POLL_MS after it ended (issue 23). A completed batch's
  // result is its final state (the state query's answer at its end): shown as it is, without the
  // describe and the query, which a closed workflow answers only by a replay on the daemon.
  let final: BatchView | undefined;
  const closed = batch.result(workflowId).then(
    (state) => {
      final = { workflowId, workflowStatus: 'COMPLETED', state };
      return true;
    },
    () => false,
  );
  try {
    for (;;) {
      const v: BatchView = final ?? (await batchView(batch, workflowId));
      if (ctrlC.pressed) break;
      const ended = v.workflowStatus !== 'RUNNING';
      const due = ended || Date.now() - lastLine >= o.intervalMs;
      if (o.json) {
        const line = JSON.stringify(v);
        if (due && line !== lastJson) {
          console.log(line);
          lastJson = line;
          lastLine = Date.now();
        }
      } else if (bar && v.state) bar.show(v.state);
      else if (v.state && due) {
        console.log(`  ${progressLine(v.state)}`);
        lastLine = Date.now();
      }
      if (ended) {
        bar?.stop();
        if (!o.json) console.log(`\n${statusTable(v)}`);
        return batchExitCode(v);
      }
      await Promise.race([ctrlC.pause(POLL_MS), closed]);
      if (ctrlC.pressed) break;
    }
    bar?.stop();
    console.error(`\nstopped watching; the batch keeps running. Re-attach: sluice batch watch ${workflowId}`);
    return EXIT_CODES.interrupted;
  } finally {
    bar?.stop();
    ctrlC.dispose();
  }
}
