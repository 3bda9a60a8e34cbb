/** How the batch commands show batches to people: exit codes, the status table, the one-line progress. */
import { type BatchState } from '../../../contracts';
import { BATCH_OUTCOMES } from '../../../contracts/names/batch';
import { type BatchView } from '../../batch';
import { failedCount } from '../../batch-status';
import { EXIT_CODES } from '../exit-codes';

/** Exit codes of the batch commands, for their help, README and docs/cli.md. */
export const BATCH_EXIT_HELP =
  'Exit code: 0 the batch completed and every input COMPLETED; 1 it completed with some inputs not COMPLETED (failed, bad input, expired, not submitted) or the workflow failed; 2 usage (no such batch); 3 cancelled; 4 still running.';

/** The batch's view as people read it (client/batch-status.ts), and its inputs that did not complete. */
export { batchStatus as batchView, failedCount } from '../../batch-status';

/** Exit code of a batch in any state: 4 while it runs, 3 cancelled, 0 only if every input COMPLETED, else 1. */
export function batchExitCode(v: BatchView): number {
  if (v.workflowStatus === 'RUNNING') return EXIT_CODES.running;
  if (v.workflowStatus === 'CANCELLED') return EXIT_CODES.cancelled;
  const c = v.state?.counts;
  if (v.workflowStatus === 'COMPLETED' && c && c.total !== undefined && (c.byStatus.COMPLETED ?? 0) === c.total)
    return EXIT_CODES.ok;
  return EXIT_CODES.failed;
}

const clock = (ms: number): string => new Date(ms).toISOString().slice(11, 19);

/** `12s`, `4m05s`, `2h10m`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export const etaText = (s: BatchState, now = Date.now()): string => (s.eta === undefined ? '-' : duration(s.eta - now));
export const rateText = (perSecond: number): string => perSecond.toFixed(perSecond < 10 ? 1 : 0);
export const spendText = (usd: number): string => `$${usd.toFixed(usd < 1 ? 4 : 2)}`;
/** `37/50` (total unknown until the whole file is read: `37/45+`). */
export const doneOfTotal = (s: BatchState): string => `${s.counts.done}/${s.counts.total ?? `${s.counts.read}+`}`;

/** What `no-webhooks` means, said where the status shows it. */
const NO_WEBHOOKS =
  'polling: webhooks do not reach the daemon (check that SLUICE_PUBLIC_URL is reachable from the service)';

/** One plain progress line (not on a terminal). */
export function progressLine(s: BatchState, now = Date.now()): string {
  const pct = s.counts.total ? ` (${Math.floor((100 * s.counts.done) / s.counts.total)}%)` : '';
  const waiting = s.waiting.filter((w) => w !== 'window-full' && w !== 'input-done');
  return [
    clock(now),
    `${doneOfTotal(s)} done${pct}`,
    `${failedCount(s)} failed`,
    `${s.counts.inFlight} in flight`,
    `${rateText(s.completeRate)}/s`,
    `ETA ${etaText(s, now)}`,
    spendText(s.spend),
    ...(s.phase !== 'running' ? [s.phase] : []),
    ...(waiting.length ? [`waiting: ${waiting.join(', ')}`] : []),
  ].join('  ');
}

/** The status table of `sluice batch status` (and the end of `start` / `watch`). */
export function statusTable(v: BatchView, now = Date.now()): string {
  const s = v.state;
  const rows: [string, string][] = [
    ['batch', v.workflowId],
    ['workflow', v.workflowStatus],
  ];
  if (v.failure) rows.push(['failure', v.failure]);
  const e = v.stepError;
  if (e) rows.push(['failing', `${e.activity} attempt ${e.attempt} (retried): ${e.message}`]);
  if (s) {
    const c = s.counts;
    // In BATCH_OUTCOMES order, not in the order the outcomes first came (per-job children end in any order).
    const by = BATCH_OUTCOMES.filter((k) => c.byStatus[k] !== undefined)
      .map((k) => `${k} ${c.byStatus[k]}`)
      .join('  ');
    rows.push(
      ['phase', s.phase],
      ['endpoint', s.endpointId],
      ['done', `${doneOfTotal(s)}${c.total ? ` (${Math.floor((100 * c.done) / c.total)}%)` : ''}`],
      ['outcomes', by || '-'],
      [
        'in progress',
        `read ${c.read}  submitted ${c.submitted}  in flight ${c.inFlight}  waiting retry ${c.waitingRetry}`,
      ],
      ['retries', `${c.retries}  rate-limited ${c.rateLimited}  duplicates avoided ${c.duplicatesAvoided}`],
      ['rates', `submit ${rateText(s.submitRate)}/s  complete ${rateText(s.completeRate)}/s`],
      [
        'eta',
        s.phase === 'done'
          ? '-'
          : s.eta === undefined
            ? '-'
            : `${new Date(s.eta).toISOString()} (in ${etaText(s, now)})`,
      ],
      [
        'spend',
        `${spendText(s.spend)}${s.pricePerHour !== undefined ? ` at $${s.pricePerHour}/h` : ''}${s.options.maxCost !== undefined ? ` (cap $${s.options.maxCost})` : ''}`,
      ],
      ['waiting', s.waiting.join(', ') || '-'],
      ...(s.waiting.includes('no-webhooks') ? [['completion', NO_WEBHOOKS] as [string, string]] : []),
      [
        'options',
        `concurrency ${s.options.concurrency}  key limit ${s.options.keyLimit ?? '-'}  deadline ${s.options.deadline ? new Date(s.options.deadline).toISOString() : '-'}`,
      ],
      ['elapsed', `${duration((s.endedAt ?? now) - s.startedAt)}  runs ${s.runs}`],
      ['output', s.outDir],
    );
    for (const [i, e] of s.lastErrors.entries()) rows.push([i === 0 ? 'last errors' : '', `#${e.index}: ${e.error}`]);
  }
  return rows.map(([k, val]) => `${k.padEnd(12)}${val}`).join('\n');
}
