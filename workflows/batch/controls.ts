/**
 * The live controls of a batch, for both of its modes (bulk steps, per-job workflows): what it
 * starts with, how a `configure` update changes them, what they block, and the spend they cap. Pure.
 */
import type { BatchConfigure, BatchWorkflowInput, WaitReason } from '../../contracts';
import { costCapReached } from '../../contracts/limits';

/** The live controls of a batch (updates change them; carried across continue-as-new). */
export interface Controls {
  paused: boolean;
  cancelling: boolean;
  concurrency: number;
  keyLimit?: number;
  maxCost?: number;
  deadline?: number;
  /** A stop its parent sent with the feed (a pipeline's cost cap over every stage): it submits no more. */
  stop?: WaitReason;
}

/** The controls a batch starts with: its options'. */
export function initialControls(o: BatchWorkflowInput['options']): Controls {
  return {
    paused: false,
    cancelling: false,
    concurrency: o.concurrency,
    ...(o.keyLimit !== undefined ? { keyLimit: o.keyLimit } : {}),
    ...(o.maxCost !== undefined ? { maxCost: o.maxCost } : {}),
    ...(o.deadline !== undefined ? { deadline: o.deadline } : {}),
  };
}

/** Applies a `configure` update to the controls (`null` clears a cap). */
export function configure(c: Controls, change: BatchConfigure): void {
  if (change.concurrency !== undefined) c.concurrency = change.concurrency;
  if (change.keyLimit !== undefined) c.keyLimit = change.keyLimit;
  if (change.maxCost === null) delete c.maxCost;
  else if (change.maxCost !== undefined) c.maxCost = change.maxCost;
  if (change.deadline === null) delete c.deadline;
  else if (change.deadline !== undefined) c.deadline = change.deadline;
}

/** Whether the batch may submit, and if not why. */
export function submitBlockers(c: Controls, spend: number, now: number): WaitReason[] {
  const why: WaitReason[] = [];
  if (c.paused) why.push('paused');
  if (costCapReached(c.maxCost, spend)) why.push('cost-cap');
  if (c.deadline !== undefined && now >= c.deadline) why.push('deadline');
  if (c.stop !== undefined && !why.includes(c.stop)) why.push(c.stop);
  return why;
}

export { costCapReached } from '../../contracts/limits';

/** The estimated spend (USD) of `execMs` of execution at `pricePerHour` per worker-hour; 0 without a price. */
export const spendOf = (execMs: number, pricePerHour: number | undefined): number =>
  pricePerHour !== undefined ? (execMs / 3_600_000) * pricePerHour : 0;

/** The controls as the state query shows them (the batch's options now). */
export const optionsOf = (
  c: Controls,
): { concurrency: number; keyLimit?: number; maxCost?: number; deadline?: number } => ({
  concurrency: c.concurrency,
  ...(c.keyLimit !== undefined ? { keyLimit: c.keyLimit } : {}),
  ...(c.maxCost !== undefined ? { maxCost: c.maxCost } : {}),
  ...(c.deadline !== undefined ? { deadline: c.deadline } : {}),
});
