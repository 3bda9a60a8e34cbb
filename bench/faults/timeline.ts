/** bench/faults' timeline of a run: the bench's own marks (kills, restarts) beside the batch workflow's history events that show a stall (timeouts, failures, a worker change), in seconds from the start. */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;
const { EventType } = temporal.api.enums.v1;

/** One line of the timeline: seconds from the batch's start, and what happened. */
export interface Mark {
  atS: number;
  what: string;
}

/** Records the bench's own marks as they happen, relative to `t0` (epoch ms). */
export class Marks {
  readonly list: Mark[] = [];
  constructor(private readonly t0: number) {}
  add(what: string): void {
    this.list.push({ atS: secondsSince(this.t0, Date.now()), what });
  }
}

function secondsSince(t0: number, ms: number): number {
  return Math.round((ms - t0) / 100) / 10;
}

function epochMs(e: HistoryEvent): number {
  const t = e.eventTime;
  return t ? Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6) : 0;
}

/** The events of every run of workflow `id` (continue-as-new followed). */
async function historyOf(client: Client, id: string): Promise<HistoryEvent[]> {
  const d = await client.workflow.getHandle(id).describe();
  const out: HistoryEvent[] = [];
  for (let runId: string | undefined = d.raw.workflowExecutionInfo?.firstRunId || d.runId; runId;) {
    const h = await client.workflow.getHandle(id, runId).fetchHistory();
    out.push(...(h.events ?? []));
    runId = h.events?.at(-1)?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? undefined;
  }
  return out;
}

/** What an event says about a stall, or undefined for the events of normal progress. */
function describe(e: HistoryEvent, scheduled: Map<string, string>, lastWorker: { id: string }): string | undefined {
  const type = (EventType[e.eventType ?? 0] ?? '').replace('EVENT_TYPE_', '').toLowerCase();
  if (e.activityTaskScheduledEventAttributes)
    scheduled.set(String(e.eventId), e.activityTaskScheduledEventAttributes.activityType?.name ?? '?');
  const act = (id: unknown) => scheduled.get(String(id)) ?? '?';
  if (e.activityTaskTimedOutEventAttributes)
    return `${type}: ${act(e.activityTaskTimedOutEventAttributes.scheduledEventId)} (${e.activityTaskTimedOutEventAttributes.failure?.message ?? ''})`;
  if (e.activityTaskFailedEventAttributes)
    return `${type}: ${act(e.activityTaskFailedEventAttributes.scheduledEventId)} (${e.activityTaskFailedEventAttributes.failure?.message?.slice(0, 80) ?? ''})`;
  if (e.activityTaskStartedEventAttributes) {
    const a = e.activityTaskStartedEventAttributes;
    if ((a.attempt ?? 1) > 1) return `${type}: ${act(a.scheduledEventId)} attempt ${a.attempt} on ${a.identity ?? '?'}`;
  }
  if (e.workflowTaskTimedOutEventAttributes)
    return `${type} (${String(e.workflowTaskTimedOutEventAttributes.timeoutType)})`;
  if (e.workflowTaskFailedEventAttributes) return `${type} (${String(e.workflowTaskFailedEventAttributes.cause)})`;
  if (e.workflowTaskStartedEventAttributes) {
    const who = e.workflowTaskStartedEventAttributes.identity ?? '?';
    if (who !== lastWorker.id) {
      const was = lastWorker.id;
      lastWorker.id = who;
      if (was) return `workflow task on another worker: ${who}`;
    }
  }
  return undefined;
}

/** Every event, briefly: its type, the activity it is about, the worker that took it. */
function brief(e: HistoryEvent, scheduled: Map<string, string>): string {
  const type = (EventType[e.eventType ?? 0] ?? '').replace('EVENT_TYPE_', '').toLowerCase();
  const a =
    e.activityTaskStartedEventAttributes ??
    e.activityTaskCompletedEventAttributes ??
    e.activityTaskFailedEventAttributes ??
    e.activityTaskTimedOutEventAttributes;
  const name = a?.scheduledEventId ? ` ${scheduled.get(String(a.scheduledEventId)) ?? '?'}` : '';
  const started = e.activityTaskStartedEventAttributes ?? e.workflowTaskStartedEventAttributes;
  const who = started?.identity ? ` on ${started.identity}` : '';
  const payload =
    e.activityTaskScheduledEventAttributes?.input?.payloads?.[0] ??
    e.activityTaskCompletedEventAttributes?.result?.payloads?.[0];
  return `  · ${type}${name}${who}${payload ? sizes(payload.data) : ''}`;
}

/** The lengths of the lists of a step's order or result (`submitted 12, completions 40`), when its payload is plain JSON. */
function sizes(data: Uint8Array | null | undefined): string {
  try {
    const o = JSON.parse(Buffer.from(data ?? []).toString('utf8')) as Record<string, unknown>;
    const lists = Object.entries(o).filter(([, v]) => Array.isArray(v) && v.length > 0);
    const collect = o.collect ? ` collect ${JSON.stringify(o.collect)}` : '';
    return `: ${lists.map(([k, v]) => `${k} ${(v as unknown[]).length}`).join(', ')}${collect}`;
  } catch {
    return '';
  }
}

/**
 * The run's marks and its workflow's stall events, in time order; `gapS` adds a line for every
 * stretch of at least that many seconds between two consecutive history events; `every`: a line
 * for every event too (`--history`).
 */
export async function timeline(
  client: Client,
  id: string,
  t0: number,
  marks: Mark[],
  gapS = 2,
  every = false,
): Promise<Mark[]> {
  const events = await historyOf(client, id);
  const out: Mark[] = [...marks];
  const scheduled = new Map<string, string>();
  const lastWorker = { id: '' };
  let prev = t0;
  for (const e of events) {
    const at = epochMs(e);
    if ((at - prev) / 1000 >= gapS)
      out.push({ atS: secondsSince(t0, prev), what: `no history event for ${((at - prev) / 1000).toFixed(1)} s` });
    prev = at;
    const what = describe(e, scheduled, lastWorker);
    if (what) out.push({ atS: secondsSince(t0, at), what });
    else if (every) out.push({ atS: secondsSince(t0, at), what: brief(e, scheduled) });
  }
  return out.sort((a, b) => a.atS - b.atS);
}
