/** Watching a scaler live: the status table redrawn on a terminal, a plain line every few seconds elsewhere, JSON lines for machines; Ctrl-C stops only the watching. */
import { type ScalerClient } from '../../scaler';
import { onCtrlC } from '../ctrl-c';
import { EXIT_CODES } from '../exit-codes';
import { scalerExitCode, scalerLine, scalerTable } from './output';

export interface ScalerWatchOptions {
  json: boolean;
  /** Milliseconds between plain (or JSON) lines. */
  intervalMs: number;
  /** Redraw the status table in place instead of plain lines. */
  tty: boolean;
  /** Decisions shown in the table. */
  decisions: number;
}

/** Query the scaler this often (and redraw the table). */
const POLL_MS = 1000;
const CLEAR = '\u001b[H\u001b[2J';

/**
 * Shows the scaler until it ends (then its table, or its final view as the last JSON line) and
 * returns its status's exit code; on Ctrl-C returns 130 and the scaler keeps running.
 */
export async function watchScaler(scaler: ScalerClient, endpointId: string, o: ScalerWatchOptions): Promise<number> {
  const ctrlC = onCtrlC();
  let lastLine = 0;
  try {
    for (;;) {
      const v = await scaler.view(endpointId);
      if (ctrlC.pressed) break;
      const ended = v.workflowStatus !== 'RUNNING';
      const due = ended || Date.now() - lastLine >= o.intervalMs;
      if (o.json) {
        if (due) console.log(JSON.stringify(v));
      } else if (o.tty) {
        process.stdout.write(
          `${CLEAR}${scalerTable(v, { decisions: o.decisions })}\n\n${ended ? '' : '(Ctrl-C stops watching, not the scaler)\n'}`,
        );
      } else if (due) {
        console.log(`  ${scalerLine(v)}`);
      }
      if (due) lastLine = Date.now();
      if (ended) {
        if (!o.json && !o.tty) console.log(`\n${scalerTable(v, { decisions: o.decisions })}`);
        return scalerExitCode(v);
      }
      if (await ctrlC.pause(POLL_MS)) break;
    }
    console.error(`\nstopped watching; the scaler keeps running. Re-attach: sluice scaler watch ${endpointId}`);
    return EXIT_CODES.interrupted;
  } finally {
    ctrlC.dispose();
  }
}
