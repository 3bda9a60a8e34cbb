/** What the parts of the pool (lifecycle, worker protocol, reconciler) share. */
import { type Registry } from '../control-plane/registry';
import { type JobEngine } from '../jobs/engine';
import { type CrashGuard } from './crash-guard';
import { type PodTable } from './pod-table';

/** The pool's state and neighbours, handed to each of its parts. */
export interface PoolParts {
  pods: PodTable;
  registry: Registry;
  engine: JobEngine;
  crashes: CrashGuard;
  /** The pool should reconcile again soon. */
  changed: () => void;
}
