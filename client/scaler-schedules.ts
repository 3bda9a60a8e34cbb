/**
 * Scheduled scale up/down (`sluice.scaler.schedules`): Temporal Schedules that, when they fire, set a
 * running scaler's floor/ceiling window or, when none runs, the endpoint's workersMin/workersMax.
 * What a schedule is (its checked input, Temporal spec and view) is in scaler-schedule-spec.ts.
 */
import {
  type Client,
  type ScheduleDescription,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
} from '@temporalio/client';
import {
  scaleScheduleId,
  scaleScheduleOf,
  scaleWindowWorkflowId,
  type ScalerScheduleInit,
  type ScalerScheduleView,
  type ScaleWindowInput,
} from '../contracts';
import { WORKFLOW_TYPES } from '../contracts/names/common';
import type { scaleWindowWorkflow } from '../workflows/scaler/window';
import { ScalerScheduleError, scheduleInputOf, scheduleSpecOf, scheduleViewOf } from './scaler-schedule-spec';

export { ScalerScheduleError } from './scaler-schedule-spec';

/** A fire missed by more than this (Temporal down) is skipped: an 08:00 scale-up is not applied at 21:00. */
const CATCHUP_WINDOW = '15 minutes';
/** How long `pause` and `delete` wait for a firing under way to end. */
const SETTLE_MS = 30_000;

/** Scale schedules of endpoints: add, list, pause, resume, delete. */
export class ScalerSchedules {
  constructor(
    private readonly client: Client,
    private readonly taskQueue: string,
  ) {}

  /** Creates the schedule (`scale/<endpointId>/<name>`); refused when one of that name exists. */
  async add(init: ScalerScheduleInit): Promise<ScalerScheduleView> {
    const s = scheduleInputOf(init);
    const scheduleId = scaleScheduleId(s.endpointId, s.name!);
    const input: ScaleWindowInput = {
      endpointId: s.endpointId,
      min: s.min,
      max: s.max,
      source: scheduleId,
      ...(s.forMs !== undefined ? { forMs: s.forMs } : {}),
    };
    try {
      await this.client.schedule.create<typeof scaleWindowWorkflow>({
        scheduleId,
        spec: scheduleSpecOf(s),
        memo: { schedule: s },
        action: {
          type: 'startWorkflow',
          workflowType: WORKFLOW_TYPES.scaleWindow,
          taskQueue: this.taskQueue,
          workflowId: scaleWindowWorkflowId(scheduleId),
          args: [input],
          workflowExecutionTimeout: '15 minutes',
        },
        // A firing still applying when the next is due: the next waits for it (and is not lost).
        policies: { overlap: 'BUFFER_ONE', catchupWindow: CATCHUP_WINDOW },
        state: { paused: s.paused, ...(s.paused ? { note: 'created paused' } : {}) },
      });
    } catch (err) {
      if (err instanceof ScheduleAlreadyRunning)
        throw new ScalerScheduleError(
          'SCHEDULE_EXISTS',
          `schedule ${s.name!} of endpoint ${s.endpointId} exists already (${scheduleId}); delete it first or choose another name`,
        );
      // Temporal checks cron expressions and time zones: its message says what is wrong.
      if (err instanceof TypeError)
        throw new ScalerScheduleError('INVALID_SCHEDULE', `invalid schedule: ${err.message}`);
      throw err;
    }
    return this.get(s.endpointId, s.name!);
  }

  /** One schedule; SCHEDULE_NOT_FOUND when it does not exist. */
  async get(endpointId: string, name: string): Promise<ScalerScheduleView> {
    return scheduleViewOf(await this.describe(endpointId, name));
  }

  /** The scale schedules (of one endpoint, or all), by id. Listing is eventually consistent: a schedule just added may show a moment later. */
  async list(o: { endpointId?: string } = {}): Promise<ScalerScheduleView[]> {
    const ids: string[] = [];
    for await (const x of this.client.schedule.list()) {
      const of = scaleScheduleOf(x.scheduleId);
      if (of && (o.endpointId === undefined || of.endpointId === o.endpointId)) ids.push(x.scheduleId);
    }
    const views = await Promise.all(
      ids.sort().map((id) =>
        this.client.schedule
          .getHandle(id)
          .describe()
          .then(scheduleViewOf, (err: unknown) => {
            if (err instanceof ScheduleNotFoundError) return undefined; // deleted since it was listed
            throw err;
          }),
      ),
    );
    return views.filter((v): v is ScalerScheduleView => v !== undefined);
  }

  /** Pauses the schedule (no firing while paused; `note` says why, shown by list); returns once a firing under way has ended, so none lands after. */
  async pause(endpointId: string, name: string, note = 'paused by sluice'): Promise<ScalerScheduleView> {
    await this.describe(endpointId, name);
    await this.handle(endpointId, name).pause(note);
    await this.settled(await this.describe(endpointId, name));
    return this.get(endpointId, name);
  }

  async resume(endpointId: string, name: string): Promise<ScalerScheduleView> {
    await this.describe(endpointId, name);
    await this.handle(endpointId, name).unpause('resumed by sluice');
    return this.get(endpointId, name);
  }

  /** Deletes the schedule (the bounds it set stay); returns once a firing under way has ended, so none lands after. */
  async delete(endpointId: string, name: string): Promise<void> {
    await this.describe(endpointId, name);
    // Paused first, so that the firings under way, read next, are all there will be.
    await this.handle(endpointId, name).pause('being deleted by sluice');
    const d = await this.describe(endpointId, name);
    await this.handle(endpointId, name).delete();
    await this.settled(d);
  }

  /**
   * Waits for the firings under way in `d` to end, at most SETTLE_MS (with no daemon running, a firing
   * would wait for one forever); how each ended is its own business, not the caller's error.
   */
  private async settled(d: ScheduleDescription): Promise<void> {
    const runs = d.info.runningActions.map(({ workflow: w }) =>
      this.client.workflow.getHandle(w.workflowId, undefined, { firstExecutionRunId: w.firstExecutionRunId }),
    );
    if (runs.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((r) => (timer = setTimeout(r, SETTLE_MS)));
    const ended = Promise.all(runs.map((h) => h.result().catch(() => undefined)));
    await Promise.race([ended, bound]).finally(() => clearTimeout(timer));
  }

  private handle(endpointId: string, name: string) {
    return this.client.schedule.getHandle(scaleScheduleId(endpointId, name));
  }

  private async describe(endpointId: string, name: string): Promise<ScheduleDescription> {
    try {
      return await this.handle(endpointId, name).describe();
    } catch (err) {
      if (err instanceof ScheduleNotFoundError)
        throw new ScalerScheduleError('SCHEDULE_NOT_FOUND', `no schedule ${name} on endpoint ${endpointId}`);
      throw err;
    }
  }
}
