/**
 * The batch backlogs a scaler knows: a pushed report replaces its source's, and a pull brings one
 * report per running batch (merged with the pushed ones). Pure; what they ask for is in demand.ts.
 */
import type { Backlog, BacklogReport, HealthSample } from '../../contracts';
import type { EndpointBacklog } from '../../activities/scaler/activities';
import { observedJobMs } from './demand';

/** The backlogs after a pushed report (the backlog update or signal): it replaces the report of its source, if any. */
export function withReport(backlogs: Backlog[], r: BacklogReport, now: number): Backlog[] {
  const b: Backlog = { ...r, reportedAt: r.reportedAt ?? now };
  return [...backlogs.filter((x) => x.source !== b.source), b];
}

/**
 * The backlogs after a pull: the pushed reports, and one pulled report per running batch of the scan
 * (a batch no longer listed has ended: its pulled report goes). A pushed report newer than one scan
 * period wins over the pull of the same source. A batch without an average job time yet takes the
 * duration observed from `/health`; with neither, the policy asks a worker per `targetPerWorker` of its jobs.
 */
export function mergePulled(
  backlogs: Backlog[],
  scan: EndpointBacklog,
  now: number,
  scanMs: number,
  samples: HealthSample[],
): Backlog[] {
  const pushed = backlogs.filter((b) => !b.pulled);
  const seen = observedJobMs(samples);
  const pulled: Backlog[] = [];
  for (const b of scan.batches) {
    const jobMs = b.jobMs ?? (seen !== undefined ? Math.max(1, Math.round(seen)) : undefined);
    if (pushed.some((x) => x.source === b.source && x.reportedAt > now - scanMs)) continue;
    pulled.push({
      source: b.source,
      remaining: b.remaining,
      concurrency: b.concurrency,
      ...(jobMs !== undefined ? { jobMs } : {}),
      ...(b.deadline !== undefined ? { deadline: b.deadline } : {}),
      reportedAt: now,
      pulled: true,
    });
  }
  return [...pushed.filter((x) => !pulled.some((p) => p.source === x.source)), ...pulled];
}
