/**
 * Wire shapes of scheduled scale up/down: a scale schedule (a Temporal Schedule on an endpoint: when,
 * in which time zone, which floor and ceiling), what its workflow does when it fires, and how a
 * schedule is shown. Plain JSON only.
 */
import { z } from 'zod';

const workers = (field: string) =>
  z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be an integer` })
    .min(0, { error: `${field} must be at least 0` })
    .max(100, { error: `${field} must be at most 100` });

/** A schedule's name within its endpoint (part of its id): letters, digits, `-` and `_`. */
export const ScalerScheduleName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: 'a schedule name is 1-64 letters, digits, - or _' });

/** Time of day `HH:MM` or `HH:MM:SS`, 24-hour clock. */
export const TIME_OF_DAY = /^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/;
/** Weekdays: names (`mon` ... `sun`), ranges (`mon-fri`, `fri-mon`) and lists (`mon,wed,fri`). */
export const DAYS =
  /^(mon|tue|wed|thu|fri|sat|sun)(-(mon|tue|wed|thu|fri|sat|sun))?(,(mon|tue|wed|thu|fri|sat|sun)(-(mon|tue|wed|thu|fri|sat|sun))?)*$/i;

/** What the library's `schedules.add` takes: when (`at` with `days`, or `cron`), where (`timezone`), and the bounds. */
export const ScalerScheduleInput = z
  .strictObject({
    endpointId: z.string().min(1),
    /** The schedule's name within the endpoint; default from `at`/`days` (`0800-mon-fri`) or a hash of `cron`. */
    name: ScalerScheduleName.optional(),
    /** The floor of a running scaler's window, or workersMin when no scaler runs. */
    min: workers('min'),
    /** The ceiling of a running scaler's window, or workersMax when no scaler runs. */
    max: workers('max'),
    /** Every day (or every one of `days`) at this time of day, in `timezone`. */
    at: z.string().regex(TIME_OF_DAY, { error: 'at must be a time of day HH:MM (24-hour), e.g. 08:00' }).optional(),
    /** With `at`: only on these weekdays (`mon-fri`). @default every day */
    days: z.string().regex(DAYS, { error: 'days must be weekdays like mon-fri, sat,sun or mon,wed,fri' }).optional(),
    /** A cron expression instead of `at` (5-7 fields, `@daily`, `@every 10m`), read by Temporal. */
    cron: z.string().min(1).max(200).optional(),
    /** IANA time zone of `at` and `cron`; Temporal's calendar specs apply its daylight-saving rules. @default 'UTC' */
    timezone: z.string().min(1).max(100).default('UTC'),
    /** Epoch ms after which the schedule fires no more (Temporal's `endAt`). */
    until: z.number().int().positive().optional(),
    /** With a running scaler: the window lasts this long after each firing, ms (else until replaced). */
    forMs: z
      .number()
      .int()
      .min(1000)
      .max(366 * 86_400_000)
      .optional(),
    /** Created paused. @default false */
    paused: z.boolean().default(false),
  })
  .refine((s) => (s.at === undefined) !== (s.cron === undefined), {
    error: 'give either at (a time of day) or cron, not both',
  })
  .refine((s) => s.days === undefined || s.at !== undefined, {
    error: 'days go with at (a cron expression has its own weekday field)',
  })
  .refine((s) => s.min <= s.max, { error: 'min must not exceed max' });
export type ScalerScheduleInput = z.infer<typeof ScalerScheduleInput>;
export type ScalerScheduleInit = z.input<typeof ScalerScheduleInput>;

/** Input of the workflow a scale schedule starts each time it fires. */
export const ScaleWindowInput = z.strictObject({
  endpointId: z.string().min(1),
  min: workers('min'),
  max: workers('max'),
  forMs: z.number().int().positive().optional(),
  /** The schedule's id: the scaler's status names it as the window's source. */
  source: z.string().min(1).max(200),
});
export type ScaleWindowInput = z.infer<typeof ScaleWindowInput>;

/** What a firing did: set a running scaler's window, or the endpoint's bounds (no scaler ran). */
export const ScaleWindowResult = z.strictObject({
  applied: z.enum(['window', 'bounds']),
  endpointId: z.string(),
  /** The endpoint's bounds afterwards (as the scaler or saveEndpoint answered). */
  workersMin: z.number().int().optional(),
  workersMax: z.number().int().optional(),
  /** With `window`: when the window ends (epoch ms), if it does. */
  until: z.number().optional(),
});
export type ScaleWindowResult = z.infer<typeof ScaleWindowResult>;

/** A scale schedule as `list` shows it: what it was given, whether it is paused, its next and last firings. */
export interface ScalerScheduleView {
  scheduleId: string;
  endpointId: string;
  name: string;
  min: number;
  max: number;
  at?: string;
  days?: string;
  cron?: string;
  timezone: string;
  /** ISO time after which it fires no more. */
  until?: string;
  forMs?: number;
  paused: boolean;
  note?: string;
  /** ISO times of the next firings (up to 3). */
  next: string[];
  /** The last firings: when, and the workflow each started. */
  recent: { at: string; workflowId: string }[];
  actionsTaken: number;
}
