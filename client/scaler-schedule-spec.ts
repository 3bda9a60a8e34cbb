/**
 * What a scale schedule is, without Temporal calls: its checked input (name and time of day filled
 * in), the Temporal spec it runs on (a calendar or a cron expression in a time zone) and its view.
 */
import { createHash } from 'node:crypto';
import { type DayOfWeek, type LooseRange, type ScheduleDescription, type ScheduleSpec } from '@temporalio/client';
import {
  ScalerScheduleInput,
  TIME_OF_DAY,
  scaleScheduleOf,
  type ScalerScheduleInit,
  type ScalerScheduleView,
  type ScaleWindowInput,
} from '../contracts';

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
export function scheduleViewOf(d: ScheduleDescription): ScalerScheduleView {
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
