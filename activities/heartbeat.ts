/**
 * A step's heartbeats (a batch's, a pipeline's): a beat per phase change or job, thinned before it
 * reaches the SDK, and a keep-alive that repeats the last one, so a step's heartbeat timeout says its
 * daemon died, never that a phase was long; and the running activity's attempt.
 */
import { Context } from '@temporalio/activity';

/** The last detail each running step heartbeat (the keep-alive repeats it), and when it last reached the SDK. */
const lastBeat = new WeakMap<Context, unknown>();
const sentAt = new WeakMap<Context, number>();

/**
 * Beats closer together than this reach the SDK once (the keep-alive sends the last detail within
 * {@link KEEP_ALIVE_MS}): a refill beats at every job, and each beat the SDK takes is encoded and
 * handed to its core, which sends at most one a second anyway.
 */
const BEAT_EVERY_MS = 100;

/** Heartbeats the step's activity with `detail` (a no-op outside an activity). */
export const beat = (detail: unknown): void => {
  const ctx = safeContext();
  if (!ctx) return; // outside an activity (unit use)
  lastBeat.set(ctx, detail);
  const now = Date.now();
  if (now - (sentAt.get(ctx) ?? 0) < BEAT_EVERY_MS) return;
  sentAt.set(ctx, now);
  ctx.heartbeat(detail);
};

/** How often a step heartbeats whatever it is doing, ms. */
export const KEEP_ALIVE_MS = 1000;

/**
 * Heartbeats the running step every {@link KEEP_ALIVE_MS} with its last detail until the returned
 * stop is called: a step's heartbeat timeout (3 s: workflows/batch/workflow.ts `steps`,
 * workflows/pipeline/workflow.ts `acts`) then says that its daemon died (or its event loop stood
 * still for seconds), never that one of its phases was long. The daemon's worker sends the SDK's
 * heartbeats on at most a second apart (worker/daemon-worker.ts); the rest is the server's slack.
 */
export function keepBeating(): () => void {
  const ctx = safeContext();
  if (!ctx) return () => undefined;
  const timer = setInterval(() => ctx.heartbeat(lastBeat.get(ctx)), KEEP_ALIVE_MS);
  return () => clearInterval(timer);
}

/** Runs `work` with {@link keepBeating} on until it settles, whichever way it ends. */
export async function whileBeating<T>(work: () => Promise<T>): Promise<T> {
  const stop = keepBeating();
  try {
    return await work();
  } finally {
    stop();
  }
}

/** The attempt of the running activity (1 outside an activity). */
export const attempt = (): number => safeContext()?.info.attempt ?? 1;

/** The running activity's context (undefined outside an activity: unit use). */
export function safeContext(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}
