/**
 * How many pods boot at once: a pod launched holds a slot until it is ready (its first job-take),
 * exits, or has booted for `holdMs`; the others wait their turn, oldest first. Eight pods launched
 * together on a 2-core machine (the platform's restart brings back every endpoint's pool at once)
 * each took ~0.3 s of CPU to load the worker runtime, and none was ready before all were (about 2 s
 * after the platform's banner); launched a few at a time, the first are ready sooner and the last
 * about as late (the same CPU in all). A worker that initializes for long (a model loading) holds
 * its slot only `holdMs`: the others are staggered, not held back.
 */
import { availableParallelism } from 'node:os';

/** Options of {@link BootGate}. */
export interface BootGateOptions {
  /** Pods booting at once (0: no limit). @default the CPUs, at least 2 */
  max?: number;
  /** Longest a booting pod holds its slot, ms. @default 500 */
  holdMs?: number;
}

/** The pods booting and those waiting to; `launch` is called for each once it may boot. */
export class BootGate<P> {
  private readonly booting = new Map<P, NodeJS.Timeout>();
  private readonly waiting: P[] = [];
  private readonly max: number;
  private readonly holdMs: number;

  constructor(
    private readonly launch: (pod: P) => void,
    o: BootGateOptions = {},
  ) {
    this.max = o.max ?? Math.max(2, availableParallelism());
    this.holdMs = o.holdMs ?? 500;
  }

  /** Pod `pod` may boot: now if a slot is free, else once one is. */
  admit(pod: P): void {
    if (this.max > 0 && this.booting.size >= this.max) this.waiting.push(pod);
    else this.start(pod);
  }

  /** Pod `pod` booted (ready), or will not (exited, stopped): its slot, or its place in line, is freed. */
  done(pod: P): void {
    const i = this.waiting.indexOf(pod);
    if (i >= 0) this.waiting.splice(i, 1);
    const timer = this.booting.get(pod);
    if (!timer) return;
    clearTimeout(timer);
    this.booting.delete(pod);
    const next = this.waiting.shift();
    if (next !== undefined) this.start(next);
  }

  /** Pods waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  private start(pod: P): void {
    if (this.max > 0) this.booting.set(pod, setTimeout(() => this.done(pod), this.holdMs).unref());
    this.launch(pod);
  }
}
