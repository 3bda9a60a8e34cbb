/** The library's scaler orchestration: one scaler workflow per endpoint keeps its workersMin/workersMax right. */
import { WorkflowFailedError } from '@temporalio/client';
import {
  BacklogReport,
  OverrideInput,
  ScaleWindow,
  ScalerWorkflowInput,
  ScalerConfigure,
  endpointIdOfScaler,
  scalerWorkflowId,
  type OverrideInput as OverrideInit,
  type ScalerState,
  type ScalerConfigure as ConfigureInit,
  type ScalerOptionsInput,
} from '../contracts';
import { WORKFLOW_TYPES } from '../contracts/names/common';
import { SCALER_QUERIES, SCALER_SIGNALS, SCALER_UPDATES } from '../contracts/names/scaler';
import { OrchestrationClient, type ClientOptions } from './base';
import { ScalerSchedules } from './scaler-schedules';
// The workflow's type only: the client starts, queries, updates and signals it by name (contracts/names).
import type { scalerWorkflow } from '../workflows/scaler/workflow';

/** Options of {@link ScalerClient}. */
export type ScalerClientOptions = ClientOptions;

/** A scaler's workflow status and live state. */
export interface ScalerView {
  workflowId: string;
  workflowStatus: string;
  state?: ScalerState;
  /** Why it ended, when it failed, was terminated or timed out. */
  failure?: string;
}

/**
 * Endpoint scalers from a pipeline: start one per endpoint, read its status (bounds, load, last
 * decisions and their reasons), pin the bounds for a while, pause, resume, reconfigure, set a
 * schedule window, report a batch's backlog, stop (the bounds found at start are restored).
 */
export class ScalerClient extends OrchestrationClient {
  /** Scheduled scale up/down: Temporal Schedules that set a scaler's window, or the bounds when none runs. */
  readonly schedules: ScalerSchedules;

  constructor(o: ScalerClientOptions) {
    super(o);
    this.schedules = new ScalerSchedules(this.client, this.taskQueue);
  }

  /** Starts the endpoint's scaler (`scaler/<endpointId>`); refused while one runs. Returns the workflow id. */
  async start(endpointId: string, config: ScalerOptionsInput = {}): Promise<string> {
    const input = ScalerWorkflowInput.parse({ endpointId, config });
    const workflowId = scalerWorkflowId(endpointId);
    await this.client.workflow.start<typeof scalerWorkflow>(WORKFLOW_TYPES.scaler, {
      taskQueue: this.taskQueue,
      workflowId,
      args: [input],
    });
    return workflowId;
  }

  /** The scaler's live state. */
  async status(endpointId: string): Promise<ScalerState> {
    return this.handle(endpointId).query<ScalerState>(SCALER_QUERIES.state);
  }

  /** Workflow status and, while a daemon answers, the state. */
  async view(endpointId: string): Promise<ScalerView> {
    const h = this.handle(endpointId);
    const d = await h.describe();
    const view: ScalerView = { workflowId: h.workflowId, workflowStatus: d.status.name };
    const state = await h.query<ScalerState>(SCALER_QUERIES.state).catch(() => undefined);
    if (state) view.state = state;
    if (['FAILED', 'TERMINATED', 'TIMED_OUT'].includes(view.workflowStatus)) {
      const failure = await h.result().then(
        () => undefined,
        (err: Error & { cause?: Error }) => err.cause?.message ?? err.message,
      );
      if (failure) view.failure = failure;
    }
    return view;
  }

  /** Pins the bounds for `forMs` (then the policy takes over again); resolves once they are written. */
  async override(endpointId: string, o: OverrideInit): Promise<ScalerState> {
    return this.handle(endpointId).executeUpdate<ScalerState, [OverrideInit]>(SCALER_UPDATES.override, {
      args: [OverrideInput.parse(o)],
    });
  }

  async clearOverride(endpointId: string): Promise<ScalerState> {
    return this.handle(endpointId).executeUpdate<ScalerState, []>(SCALER_UPDATES.clearOverride);
  }

  /** No bounds change while paused (samples go on); resolves once no write is under way. */
  async pause(endpointId: string): Promise<ScalerState> {
    return this.handle(endpointId).executeUpdate<ScalerState, []>(SCALER_UPDATES.pause);
  }

  async resume(endpointId: string): Promise<ScalerState> {
    return this.handle(endpointId).executeUpdate<ScalerState, []>(SCALER_UPDATES.resume);
  }

  /** Live config changes (`null` clears an optional field); resolves once a tick ran with them. */
  async configure(endpointId: string, change: ConfigureInit): Promise<ScalerState> {
    return this.handle(endpointId).executeUpdate<ScalerState, [ConfigureInit]>(SCALER_UPDATES.configure, {
      args: [ScalerConfigure.parse(change)],
    });
  }

  /** A schedule's floor/ceiling window (until an end time, or until replaced); `null` clears it. */
  async setWindow(endpointId: string, window: ScaleWindow | null): Promise<ScalerState> {
    return this.handle(endpointId).executeUpdate<ScalerState, [ScaleWindow | null]>(SCALER_UPDATES.setWindow, {
      args: [window === null ? null : ScaleWindow.parse(window)],
    });
  }

  /** A batch's remaining work, job duration and deadline; `wait: false` sends it as a signal. */
  async reportBacklog(
    endpointId: string,
    report: BacklogReport,
    o: { wait?: boolean } = {},
  ): Promise<ScalerState | undefined> {
    const r = BacklogReport.parse(report);
    if (o.wait === false) {
      await this.handle(endpointId).signal<[BacklogReport]>(SCALER_SIGNALS.backlog, r);
      return undefined;
    }
    return this.handle(endpointId).executeUpdate<ScalerState, [BacklogReport]>(SCALER_UPDATES.backlog, { args: [r] });
  }

  /** Stops the scaler: it restores the bounds it found and ends Cancelled. Resolves with its last state. */
  async stop(endpointId: string): Promise<ScalerState | undefined> {
    const h = this.handle(endpointId);
    await h.cancel();
    try {
      await h.result();
    } catch (err) {
      if (!(err instanceof WorkflowFailedError)) throw err;
    }
    return h.query<ScalerState>(SCALER_QUERIES.state).catch(() => undefined);
  }

  /** Scalers as Temporal lists them, newest first, one per endpoint (its latest run); at most `limit`. */
  async list(
    o: { limit?: number } = {},
  ): Promise<{ workflowId: string; endpointId: string; status: string; startTime: Date }[]> {
    const out = new Map<string, { workflowId: string; endpointId: string; status: string; startTime: Date }>();
    for await (const w of this.client.workflow.list({ query: `WorkflowType = '${WORKFLOW_TYPES.scaler}'` })) {
      if (w.status.name === 'CONTINUED_AS_NEW' || out.has(w.workflowId)) continue;
      const endpointId = endpointIdOfScaler(w.workflowId);
      out.set(w.workflowId, { workflowId: w.workflowId, endpointId, status: w.status.name, startTime: w.startTime });
      if (out.size >= (o.limit ?? 100)) break;
    }
    return [...out.values()];
  }

  /** True when a scaler of this endpoint exists (running or not). */
  async exists(endpointId: string): Promise<boolean> {
    return this.workflowExists(scalerWorkflowId(endpointId));
  }

  private handle(endpointId: string) {
    return this.client.workflow.getHandle<typeof scalerWorkflow>(scalerWorkflowId(endpointId));
  }
}
