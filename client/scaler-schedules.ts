/**
 * Scheduled scale up/down (`sluice.scaler.schedules`): Temporal Schedules that, when they fire, set a
 * running scaler's floor/ceiling window or, when none runs, the endpoint's workersMin/workersMax.
 */
import { createHash } from 'node:crypto';
import {
  type Client,
  type DayOfWeek,
  type LooseRange,
  type ScheduleDescription,
  type ScheduleSpec,
  ScheduleAlreadyRunning,
  ScheduleNotFoundError,
} from '@temporalio/client';
import {
  ScalerScheduleInput,
  TIME_OF_DAY,
  scaleScheduleId,
  scaleScheduleOf,
  scaleWindowWorkflowId,
  type ScalerScheduleInit,
  type ScalerScheduleView,
  type ScaleWindowInput,
} from '../contracts';
import { WORKFLOW_TYPES } from '../contracts/names/common';
import type { scaleWindowWorkflow } from '../workflows/scaler/window';

/** An error of the schedules' library; `code` is stable, the message is for people. */
export class ScalerScheduleError extends Error {
  constructor(
    readonly code: 'INVALID_SCHEDULE' | 'SCHEDULE_EXISTS' | 'SCHEDULE_NOT_FOUND',
    message: string,
  ) {
    super(message);
    this.name = 'ScalerScheduleError';
  }
}

/** A fire missed by more than this (Temporal down) is skipped: an 08:00 scale-up is not applied at 21:00. */
const CATCHUP_WINDOW = '15 minutes';
const DAY_NAMES: Record<string, DayOfWeek> = {
  sun: 'SUNDAY',
  mon: 'MONDAY',
  tue: 'TUESDAY',
  wed: 'WEDNESDAY',
  thu: 'THURSDAY',
  fri: 'FRIDAY',
  sat: 'SATURDAY',
};
const DAY_ORDER = Object.keys(DAY_NAMES);

/** `mon-fri`, `sat,sun`, `fri-mon` (wraps over the week end) as Temporal day-of-week ranges. */
export function daysOf(days: string): LooseRange<DayOfWeek>[] {
  return days
    .toLowerCase()
    .split(',')
    .flatMap((part): LooseRange<DayOfWeek>[] => {
      const [a, b = a] = part.split('-') as [string, string?];
      const [i, j] = [DAY_ORDER.indexOf(a), DAY_ORDER.indexOf(b)];
      if (i <= j) return [{ start: DAY_NAMES[a]!, end: DAY_NAMES[b]! }];
      return [
        { start: DAY_NAMES[a]!, end: 'SATURDAY' },
        { start: 'SUNDAY', end: DAY_NAMES[b]! },
      ];
    });
}

/** `8:00` as `08:00`; `8:00:30` as `08:00:30`. */
const normalTime = (at: string): string => {
  const [, h, m, s] = TIME_OF_DAY.exec(at)!;
  return `${h!.padStart(2, '0')}:${m}${s ? `:${s}` : ''}`;
};

/** The checked input with its name and time of day filled in; an invalid one is INVALID_SCHEDULE. */
export function scheduleInputOf(init: ScalerScheduleInit): ScalerScheduleInput {
  const r = ScalerScheduleInput.safeParse(init);
  if (!r.success)
    throw new ScalerScheduleError(
      'INVALID_SCHEDULE',
      `invalid schedule: ${r.error.issues.map((i) => `${i.path.length ? `${i.path.join('.')}: ` : ''}${i.message}`).join('; ')}`,
    );
  const s = r.data;
  try {
    new Intl.DateTimeFormat('en', { timeZone: s.timezone });
  } catch {
    throw new ScalerScheduleError(
      'INVALID_SCHEDULE',
      `invalid schedule: unknown time zone ${s.timezone} (an IANA name such as Europe/Berlin or UTC)`,
    );
  }
  if (s.until !== undefined && s.until <= Date.now())
    throw new ScalerScheduleError('INVALID_SCHEDULE', 'invalid schedule: until is in the past');
  const at = s.at === undefined ? undefined : normalTime(s.at);
  const name =
    s.name ??
    (at !== undefined
      ? `${at.replace(/:/g, '')}${s.days ? `-${s.days.toLowerCase().replace(/,/g, '_')}` : ''}`
      : `cron-${createHash('sha1').update(`${s.cron!} ${s.timezone}`).digest('hex').slice(0, 8)}`);
  return { ...s, name, ...(at !== undefined ? { at } : {}) };
}

/** The Temporal spec: a calendar (time of day, weekdays) or a cron expression, in the time zone; `until` ends it. */
export function scheduleSpecOf(s: ScalerScheduleInput): ScheduleSpec {
  const when: ScheduleSpec =
    s.at !== undefined
      ? (() => {
          const [h, m, sec = '0'] = s.at.split(':');
          return {
            calendars: [
              {
                hour: Number(h),
                minute: Number(m),
                second: Number(sec),
                ...(s.days ? { dayOfWeek: daysOf(s.days) } : {}),
                comment: `at ${s.at}${s.days ? ` on ${s.days}` : ''}`,
              },
            ],
          };
        })()
      : { cronExpressions: [s.cron!] };
  return { ...when, timezone: s.timezone, ...(s.until !== undefined ? { endAt: new Date(s.until) } : {}) };
}

/** A schedule's view, from what it was given (its memo) and Temporal's description. */
function viewOf(d: ScheduleDescription): ScalerScheduleView {
  const ids = scaleScheduleOf(d.scheduleId)!;
  const memo = ScalerScheduleInput.safeParse(d.memo?.schedule);
  const args = d.action.args?.[0] as ScaleWindowInput | undefined;
  const s = memo.success ? memo.data : undefined;
  return {
    scheduleId: d.scheduleId,
    endpointId: ids.endpointId,
    name: ids.name,
    min: s?.min ?? args?.min ?? 0,
    max: s?.max ?? args?.max ?? 0,
    ...(s?.at !== undefined ? { at: s.at } : {}),
    ...(s?.days !== undefined ? { days: s.days } : {}),
    ...(s?.cron !== undefined ? { cron: s.cron } : {}),
    timezone: s?.timezone ?? (d.spec.timezone || 'UTC'),
    ...(s?.until !== undefined ? { until: new Date(s.until).toISOString() } : {}),
    ...(s?.forMs !== undefined ? { forMs: s.forMs } : {}),
    paused: d.state.paused,
    ...(d.state.note ? { note: d.state.note } : {}),
    next: d.info.nextActionTimes.slice(0, 3).map((t) => t.toISOString()),
    recent: d.info.recentActions
      .slice(-5)
      .map((a) => ({ at: a.takenAt.toISOString(), workflowId: a.action.workflow.workflowId })),
    actionsTaken: d.info.numActionsTaken,
  };
}

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
    return viewOf(await this.describe(endpointId, name));
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
          .then(viewOf, (err: unknown) => {
            if (err instanceof ScheduleNotFoundError) return undefined; // deleted since it was listed
            throw err;
          }),
      ),
    );
    return views.filter((v): v is ScalerScheduleView => v !== undefined);
  }

  /** No firing while paused; `note` says why (shown by list). */
  /** Pauses the schedule; returns once a firing under way has ended, so none lands after. */
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

  /** Deletes the schedule (a firing under way finishes; the bounds it set stay). */
  /** Deletes the schedule; returns once a firing under way has ended, so none lands after. */
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
