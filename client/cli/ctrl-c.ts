/** Ctrl-C while a command watches a workflow: it ends the watching (exit 130), never the workflow. */

/** A watch's Ctrl-C: whether it was pressed, a pause it cuts short, and the handler's removal. */
export interface CtrlC {
  readonly pressed: boolean;
  /** Waits `ms`; resolves true at once on Ctrl-C (pressed before or during the wait). */
  pause(ms: number): Promise<boolean>;
  /** Removes the SIGINT handler and ends the pauses still running (call in `finally`: none keeps the process up). */
  dispose(): void;
}

/** Takes SIGINT over until `dispose()`. */
export function onCtrlC(): CtrlC {
  let wake: () => void = () => undefined;
  const interrupted = new Promise<true>((r) => (wake = () => r(true)));
  const state = { pressed: false };
  const onSigint = (): void => {
    state.pressed = true;
    wake();
  };
  process.on('SIGINT', onSigint);
  const timers = new Set<NodeJS.Timeout>();
  const elapsed = (ms: number): Promise<false> =>
    new Promise((r) => {
      const t = setTimeout(() => {
        timers.delete(t);
        r(false);
      }, ms);
      timers.add(t);
    });
  return {
    get pressed() {
      return state.pressed;
    },
    pause: (ms) => Promise.race([interrupted, elapsed(ms)]),
    dispose: () => {
      process.off('SIGINT', onSigint);
      for (const t of timers) clearTimeout(t);
      timers.clear();
    },
  };
}
