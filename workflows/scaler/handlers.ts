/**
 * What the scaler workflow does with each message: the state query, and the updates (override,
 * pause, resume, configure, schedule window, backlog) and the backlog signal, each on one run's state.
 * An update that changes the bounds resolves once a tick has put the change in effect.
 */
import { condition, setHandler } from '@temporalio/workflow';
import type { BacklogReport, ScalerState } from '../../contracts';
import { withReport } from './backlogs';
import { configured } from './config';
import {
  backlogSignal,
  backlogUpdate,
  clearOverrideUpdate,
  configureScalerUpdate,
  overrideUpdate,
  pauseScalerUpdate,
  resumeScalerUpdate,
  scalerStateQuery,
  setWindowUpdate,
} from './messages';
import { scalerState, type ScalerRun } from './state';

/**
 * Resolves once a tick that started after the message has ended (its effect is in place), or
 * when the run hands over to the next (which carries the message and applies it at once).
 */
async function applied(run: ScalerRun): Promise<ScalerState> {
  const after = run.started;
  run.wake = true;
  await condition(() => run.done > after || run.stopping || run.handingOver);
  return scalerState(run);
}

/** A pushed backlog report: it replaces its source's and wakes the loop. */
function report(run: ScalerRun, r: BacklogReport): void {
  run.backlogs = withReport(run.backlogs, r, Date.now());
  run.wake = true;
}

/** Sets the query, update and signal handlers of the scaler on `run`. */
export function setScalerHandlers(run: ScalerRun): void {
  setHandler(scalerStateQuery, () => scalerState(run));
  setHandler(
    overrideUpdate,
    (o) => {
      run.override = { workersMin: o.workersMin, workersMax: o.workersMax, until: Date.now() + o.forMs };
      return applied(run);
    },
    {
      validator: (o) => {
        if (!(o.workersMin <= o.workersMax && o.forMs > 0))
          throw new Error('override needs workersMin <= workersMax and forMs > 0');
      },
    },
  );
  setHandler(clearOverrideUpdate, () => {
    run.override = undefined;
    return applied(run);
  });
  setHandler(pauseScalerUpdate, async () => {
    run.paused = true;
    // A tick under way may still write; none after it does.
    await condition(() => run.done === run.started || run.stopping);
    return scalerState(run);
  });
  setHandler(resumeScalerUpdate, () => {
    run.paused = false;
    return applied(run);
  });
  setHandler(
    configureScalerUpdate,
    (c) => {
      run.config = configured(run.config, c);
      return applied(run);
    },
    { validator: (c) => void configured(run.config, c) },
  );
  setHandler(
    setWindowUpdate,
    (w) => {
      run.window = w ?? undefined;
      return applied(run);
    },
    {
      validator: (w) => {
        if (w && w.floor !== undefined && w.ceiling !== undefined && w.floor > w.ceiling)
          throw new Error('floor must not exceed ceiling');
      },
    },
  );
  setHandler(backlogUpdate, (r) => {
    report(run, r);
    return applied(run);
  });
  setHandler(backlogSignal, (r) => report(run, r));
}
