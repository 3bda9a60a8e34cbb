/** The daemon's V8 heap policy: collect short-lived per-job garbage before the heap has grown far past what is live. */
import { setFlagsFromString } from 'node:v8';

/**
 * Makes V8 run a full collection once the old generation has grown `percent` % past what the last one kept alive.
 * A busy daemon promotes each job's request and answer objects (they outlive a few young collections while the job
 * is in flight), and V8's own factor for a busy process lets that garbage grow the heap up to about 4x the live data
 * before collecting: a 1,000,000-input batch's daemon swung from 80 to 260 MB of heap per cycle, its RSS with it.
 * The flag is read at each collection, so setting it once the process runs applies to every isolate (the workflow
 * threads too). `0` keeps V8's own factor.
 */
export function boundHeapGrowth(percent: number): void {
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
}
