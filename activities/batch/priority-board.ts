/**
 * Which batches of this daemon still have input to submit on each endpoint, and at what priority:
 * a batch's step yields new submissions while a higher-priority batch on the same endpoint has
 * input left, so the urgent batch's jobs do not queue on the endpoint behind a stream of the
 * lower one's. In memory, per daemon; an entry lapses when its batch's steps stop renewing it.
 */

/** Options of {@link PriorityBoard}. */
export interface PriorityBoardOptions {
  /**
   * An entry not renewed by a step for this long lapses (its batch ended, paused or moved daemon).
   * @default 10000
   */
  leaseMs?: number;
}

interface Entry {
  endpointId: string;
  priority: number;
  until: number;
}

/** The daemon's board of batches wanting to submit, by run. */
export class PriorityBoard {
  private readonly entries = new Map<string, Entry>();
  private readonly leaseMs: number;

  constructor(o: PriorityBoardOptions = {}) {
    this.leaseMs = o.leaseMs ?? 10_000;
  }

  /** Run `run` has input left to submit on `endpointId` at `priority` (renews its lease). */
  want(run: string, endpointId: string, priority: number): void {
    this.entries.set(run, { endpointId, priority, until: Date.now() + this.leaseMs });
  }

  /** Run `run` has nothing left to submit. */
  done(run: string): void {
    this.entries.delete(run);
  }

  /** Whether another run with input left on `endpointId` has a higher priority than `priority`. */
  outranked(run: string, endpointId: string, priority: number): boolean {
    const now = Date.now();
    for (const [key, e] of this.entries) {
      if (e.until < now) {
        this.entries.delete(key);
        continue;
      }
      if (key !== run && e.endpointId === endpointId && e.priority > priority) return true;
    }
    return false;
  }
}

/** A step's standing on the board: `outranked()` asks now (and remembers a yes), `yielded` tells if it ever did. */
export interface Standing {
  outranked(): boolean;
  readonly yielded: boolean;
}

/**
 * Enters a step of run `run` on the board (`wants`: its batch has input left; else it leaves the
 * board) and returns its standing. Without a board it never yields.
 */
export function standing(
  board: PriorityBoard | undefined,
  run: string,
  endpointId: string,
  priority: number,
  wants: boolean,
): Standing {
  if (wants) board?.want(run, endpointId, priority);
  else board?.done(run);
  let yielded = false;
  return {
    outranked() {
      if (board?.outranked(run, endpointId, priority)) yielded = true;
      return yielded;
    },
    get yielded() {
      return yielded;
    },
  };
}
