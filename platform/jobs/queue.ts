/** Per-endpoint FIFO of queued jobs and of the workers' `job-take` waits. */
/** A worker's pending `job-take` long-poll. */
export interface TakeWaiter {
  workerId: string;
  max: number;
  /** False once the worker's HTTP request is gone: a job must never be handed to it then. */
  isAlive(): boolean;
  deliver(jobIds: string[]): void;
  /** Ends the wait with nothing (the worker is being stopped). */
  cancel(): void;
}

/** What a worker's `job-take` wait is for. */
export interface TakeRequest {
  workerId: string;
  max: number;
  isAlive(): boolean;
}

/**
 * Per-endpoint FIFO of queued job ids and of workers waiting for one. Pure bookkeeping: the
 * engine decides what a hand-over means for the job's state.
 */
export class JobQueue {
  private readonly queues = new Map<string, Set<string>>();
  private readonly waiters = new Map<string, TakeWaiter[]>();

  push(endpointId: string, jobId: string): void {
    let q = this.queues.get(endpointId);
    if (!q) this.queues.set(endpointId, (q = new Set()));
    q.add(jobId);
  }

  /** Puts a job back at the head (a hand-over that could not be delivered). */
  pushFront(endpointId: string, jobIds: string[]): void {
    const q = this.queues.get(endpointId) ?? new Set<string>();
    this.queues.set(endpointId, new Set([...jobIds, ...q]));
  }

  remove(endpointId: string, jobId: string): boolean {
    return this.queues.get(endpointId)?.delete(jobId) ?? false;
  }

  /** Takes up to `max` job ids from the head of the queue. */
  shift(endpointId: string, max: number): string[] {
    const q = this.queues.get(endpointId);
    const out: string[] = [];
    if (!q) return out;
    for (const id of q) {
      if (out.length >= max) break;
      out.push(id);
    }
    for (const id of out) q.delete(id);
    return out;
  }

  ids(endpointId: string): string[] {
    return [...(this.queues.get(endpointId) ?? [])];
  }

  size(endpointId: string): number {
    return this.queues.get(endpointId)?.size ?? 0;
  }

  /**
   * Waits up to `waitMs` for jobs of the endpoint; `assign` turns the ids handed over (at once,
   * in {@link dispatch}) into what the waiter resolves with. Resolves with [] when nothing came.
   */
  wait<T>(endpointId: string, request: TakeRequest, waitMs: number, assign: (jobIds: string[]) => T[]): Promise<T[]> {
    return new Promise<T[]>((resolve) => {
      const waiter: TakeWaiter = {
        workerId: request.workerId,
        max: request.max,
        isAlive: () => request.isAlive(),
        deliver: (ids) => {
          clearTimeout(timer);
          resolve(assign(ids));
        },
        cancel: () => {
          clearTimeout(timer);
          resolve([]);
        },
      };
      const timer = setTimeout(() => {
        this.removeWaiter(endpointId, waiter);
        resolve([]);
      }, waitMs);
      this.addWaiter(endpointId, waiter);
    });
  }

  /** Hands queued jobs to waiting workers, oldest waiter first. */
  dispatch(endpointId: string): void {
    while (this.size(endpointId) > 0) {
      const waiter = this.nextWaiter(endpointId);
      if (!waiter) return;
      waiter.deliver(this.shift(endpointId, waiter.max));
    }
  }

  /** Ends the waits of one worker with nothing (it is being stopped). */
  cancelWaits(endpointId: string, workerId: string): void {
    for (const w of this.takeWaitersOf(endpointId, workerId)) w.cancel();
  }

  private addWaiter(endpointId: string, waiter: TakeWaiter): void {
    let list = this.waiters.get(endpointId);
    if (!list) this.waiters.set(endpointId, (list = []));
    list.push(waiter);
  }

  private removeWaiter(endpointId: string, waiter: TakeWaiter): void {
    const list = this.waiters.get(endpointId);
    if (!list) return;
    const i = list.indexOf(waiter);
    if (i >= 0) list.splice(i, 1);
  }

  /** Removes and returns the waits of one worker. */
  private takeWaitersOf(endpointId: string, workerId: string): TakeWaiter[] {
    const list = this.waiters.get(endpointId);
    if (!list) return [];
    const mine = list.filter((w) => w.workerId === workerId);
    if (mine.length > 0)
      this.waiters.set(
        endpointId,
        list.filter((w) => w.workerId !== workerId),
      );
    return mine;
  }

  /** The longest-waiting live worker of the endpoint, removed from the wait list. */
  private nextWaiter(endpointId: string): TakeWaiter | undefined {
    const list = this.waiters.get(endpointId);
    while (list && list.length > 0) {
      const w = list.shift()!;
      if (w.isAlive()) return w;
    }
    return undefined;
  }

  waitingWorkers(endpointId: string): number {
    return this.waiters.get(endpointId)?.length ?? 0;
  }

  dropEndpoint(endpointId: string): void {
    this.queues.delete(endpointId);
    this.waiters.delete(endpointId);
  }
}
