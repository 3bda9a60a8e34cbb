/** Scripted stand-ins for the job activities: each endpoint id gets its own script and call log. */
import { activityInfo } from '@temporalio/activity';
import type { JobActivities, RunRef, SubmitArgs, SubmitResult } from '../../activities/job/activities';
import type { RemoteOutcome } from '../../contracts';

type Activity = keyof JobActivities;
type JobRef = Pick<RunRef, 'endpointId' | 'remoteJobId'>;

/** One recorded activity execution. */
export interface Call {
  name: Activity;
  arg: unknown;
  activityId: string;
  attempt: number;
  /** Server time (time-skipped) at which this attempt was scheduled. */
  scheduledAt: number;
}

/** What the stubs answer for one endpoint; `n` counts the calls of that activity, from 1. */
export interface Script {
  submit?(a: SubmitArgs, n: number): SubmitResult | Promise<SubmitResult>;
  /** awaitCompletion, pollCompletion and drainStream alike. */
  wait?(ref: RunRef, n: number): RemoteOutcome | Promise<RemoteOutcome>;
  retry?(ref: JobRef, n: number): void | Promise<void>;
  cancel?(ref: JobRef, n: number): string | Promise<string>;
}

/** A finished remote job as an activity reports it, observed at the server's (skipped) time. */
export function outcome(
  ref: Pick<RunRef, 'remoteJobId'>,
  status: RemoteOutcome['status'],
  extra: Partial<RemoteOutcome> = {},
): RemoteOutcome {
  return {
    remoteJobId: ref.remoteJobId,
    status,
    observedAt: activityInfo().currentAttemptScheduledTimestampMs,
    via: 'webhook',
    ...extra,
  };
}

/** A promise the test resolves later: holds an activity (or the test) at a known point. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => (open = resolve));
  return { promise, open };
}

export function stubActivities() {
  const scripts = new Map<string, Script>();
  const logs = new Map<string, Call[]>();

  const run = async <T>(
    name: Activity,
    endpointId: string,
    arg: unknown,
    fn: (n: number) => T | Promise<T>,
  ): Promise<T> => {
    const info = activityInfo();
    const log = logs.get(endpointId) ?? [];
    logs.set(endpointId, log);
    log.push({
      name,
      arg,
      activityId: info.activityId,
      attempt: info.attempt,
      scheduledAt: info.currentAttemptScheduledTimestampMs,
    });
    return fn(log.filter((c) => c.name === name).length);
  };
  const script = (endpointId: string): Script => scripts.get(endpointId) ?? {};
  const wait = (name: Activity) => (ref: RunRef) =>
    run(
      name,
      ref.endpointId,
      ref,
      (n) => script(ref.endpointId).wait?.(ref, n) ?? outcome(ref, 'COMPLETED', { output: { n } }),
    );

  const activities: JobActivities = {
    submitJob: (a) =>
      run('submitJob', a.endpointId, a, (n) => script(a.endpointId).submit?.(a, n) ?? { remoteJobId: `r${a.attempt}` }),
    awaitCompletion: wait('awaitCompletion'),
    pollCompletion: wait('pollCompletion'),
    drainStream: wait('drainStream'),
    retryRemoteJob: (ref) => run('retryRemoteJob', ref.endpointId, ref, (n) => script(ref.endpointId).retry?.(ref, n)),
    cancelRemoteJob: (ref) =>
      run('cancelRemoteJob', ref.endpointId, ref, (n) => script(ref.endpointId).cancel?.(ref, n) ?? 'CANCELLED'),
  };
  return {
    activities,
    /** Sets the script of an endpoint; the endpoint's calls are then in `calls(endpointId)`. */
    script(endpointId: string, s: Script) {
      scripts.set(endpointId, s);
    },
    calls: (endpointId: string, name?: Activity): Call[] =>
      (logs.get(endpointId) ?? []).filter((c) => !name || c.name === name),
  };
}
