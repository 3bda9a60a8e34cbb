/**
 * The submission lanes of one Submitter.each: at most `size` of its calls at once. A call waiting
 * before a retry (a 429's `Retry-After`, a backoff) gives its lane to the next input meanwhile and,
 * its wait over, takes back the first lane that frees, before any input not yet started: a refused
 * call costs its own wait, not a lane's. Its retry is the same call (the same idempotency key,
 * journaled once), paced by the endpoint's rate budget like any other. At most `size` calls wait
 * without a lane at once (a further one keeps its lane): in a storm of 429s the step has no more
 * than twice its lanes' calls going, so it does not multiply the refused requests it sends.
 */
import { sleep } from '../../platform-api';

/** What a call holding a lane may do with it. */
export interface Lane {
  /** Waits `ms` without the lane (rejects when `signal` fires), then holds a lane again; see the bound above. */
  wait(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A count of free lanes and two queues for them: calls back from a wait first, then new inputs. */
export class Lanes {
  private free: number;
  /** Calls waiting without a lane. */
  private away = 0;
  private readonly starting: (() => void)[] = [];
  private readonly returning: (() => void)[] = [];

  constructor(private readonly size: number) {
    this.free = size;
  }

  /** Lanes in use now. */
  get busy(): number {
    return this.size - this.free;
  }

  /** Resolves once a lane is held for a new input (in order of asking). */
  take(): Promise<void> {
    return this.enter(this.starting);
  }

  /** Gives a held lane back: to a call back from its wait, else to the next input, else free. */
  give(): void {
    const next = this.returning.shift() ?? this.starting.shift();
    if (next) next();
    else this.free++;
  }

  /** The lane of every call of this each (a call holds one lane at a time, so one handle serves all). */
  readonly lane: Lane = {
    wait: async (ms, signal) => {
      if (this.away >= this.size) return sleep(ms, signal);
      this.away++;
      this.give();
      try {
        await sleep(ms, signal);
      } finally {
        this.away--;
        // Held again even when the wait is abandoned: the caller's end gives it back.
        await this.enter(this.returning);
      }
    },
  };

  private enter(queue: (() => void)[]): Promise<void> {
    if (this.free > 0) {
      this.free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => queue.push(resolve));
  }
}
