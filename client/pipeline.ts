/**
 * The library's pipeline orchestration: every input of a JSONL file through several endpoints, one
 * stage after another, through the pipeline workflow (each stage a batch). Start, watch progress
 * (with each stage's batch state), pause, resume, cancel, read results.
 */
import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { WorkflowIdReusePolicy } from '@temporalio/client';
import {
  PipelineWorkflowInput,
  pipelineIdOf,
  pipelineKeys,
  pipelineWorkflowId,
  PIPELINE_QUERIES,
  PIPELINE_UPDATES,
  WORKFLOW_TYPES,
  validatePipeline,
  type PipelineDefinitionInput,
  type PipelineIssue,
  type PipelineResultLine,
  type PipelineRunOptions,
  type PipelineState,
} from '../contracts';
import { batchInput, isS3Location, outputStore, valueLines } from '../results/batch/locations';
import { segmentLines } from '../results/batch/outcomes';
import { OrchestrationClient, startInputOf, type ClientOptions, type ListOptions } from './base';
import { BatchClient } from './batch';
import { rerunPipeline, type PipelineRerun } from './pipeline-rerun';
// The workflow's type only: the client starts, queries and updates it by name (contracts/names), loading no workflow code.
import type { pipelineWorkflow } from '../workflows/pipeline/workflow';

/** A definition that does not validate: every issue, with its stage, field and position. */
export class PipelineDefinitionError extends Error {
  readonly code = 'INVALID_DEFINITION';
  constructor(readonly issues: PipelineIssue[]) {
    super(`invalid pipeline definition: ${issues.map((i) => i.message).join('; ')}`);
    this.name = 'PipelineDefinitionError';
  }
}

/** What `start` takes. */
export interface PipelineStart<D extends PipelineDefinitionInput = PipelineDefinitionInput> {
  definition: D;
  /** The JSONL input (a local path, made absolute here, or `s3://bucket/key`). */
  source: string;
  /** Where results.jsonl, stages/, dead-letter.jsonl and summary.json go. */
  outDir: string;
  /** The pipeline id (`pipeline/<id>`); default a random UUID. */
  id?: string;
  options?: Partial<PipelineRunOptions>;
  /** The endpoint id of a stage's `endpoint` (a name or an id); default: taken as an id. */
  resolveEndpoint?: (nameOrId: string) => Promise<string>;
}

/** A pipeline's workflow status and live state (each stage with its batch's state). */
export interface PipelineView {
  workflowId: string;
  workflowStatus: string;
  state?: PipelineState;
}

export interface PipelineListing {
  workflowId: string;
  pipelineId: string;
  status: string;
  startTime: Date;
  closeTime?: Date;
}

export class PipelineClient extends OrchestrationClient {
  private readonly batches: BatchClient;

  constructor(o: ClientOptions) {
    super(o);
    this.batches = new BatchClient(o);
  }

  /** Validates the definition, resolves its endpoints, starts the pipeline; returns its workflow id. */
  async start<D extends PipelineDefinitionInput>(init: PipelineStart<D>): Promise<string> {
    const v = validatePipeline(init.definition);
    if (!v.ok) throw new PipelineDefinitionError(v.issues);
    const resolveEndpoint = init.resolveEndpoint ?? (async (x: string) => x);
    const endpoints = await Promise.all(v.definition.stages.map((s) => resolveEndpoint(s.endpoint)));
    const at = (location: string): string => (isS3Location(location) ? location : resolve(location));
    const input = PipelineWorkflowInput.parse({
      definition: v.definition,
      endpoints,
      source: at(init.source),
      outDir: at(init.outDir),
      options: init.options ?? {},
    });
    if (!(await batchInput(input.source).exists()))
      throw new Error(`input ${isS3Location(input.source) ? 'object' : 'file'} ${input.source} not found`);
    const workflowId = pipelineWorkflowId(init.id ?? randomUUID());
    await this.client.workflow.start<typeof pipelineWorkflow>(WORKFLOW_TYPES.pipeline, {
      taskQueue: this.taskQueue,
      workflowId,
      args: [input],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
    return workflowId;
  }

  /** The live state, each stage with its batch's state (counts, rates, ETA, spend, why it waits). */
  async state(id: string): Promise<PipelineState> {
    return this.withStages(await this.handle(id).query<PipelineState>(PIPELINE_QUERIES.state));
  }

  /** Workflow status and state (none when no daemon answers for a closed pipeline: see summary.json). */
  async view(id: string): Promise<PipelineView> {
    const h = this.handle(id);
    const d = await h.describe();
    const view: PipelineView = { workflowId: h.workflowId, workflowStatus: d.status.name };
    const state = await h.query<PipelineState>(PIPELINE_QUERIES.state).catch(() => undefined);
    if (state) view.state = await this.withStages(state);
    return view;
  }

  /** Stops reading new inputs and pauses every stage (nothing more is submitted once it resolves). */
  async pause(id: string): Promise<PipelineState> {
    const s = await this.handle(id).executeUpdate<PipelineState, []>(PIPELINE_UPDATES.pause);
    await Promise.all(s.stages.map((st) => this.batches.pause(st.batchId).catch(ignoreEnded)));
    return this.state(id);
  }

  async resume(id: string): Promise<PipelineState> {
    const s = await this.handle(id).executeUpdate<PipelineState, []>(PIPELINE_UPDATES.resume);
    await Promise.all(s.stages.map((st) => this.batches.resume(st.batchId).catch(ignoreEnded)));
    return this.state(id);
  }

  /** Cancels the pipeline: every stage cancels its jobs in flight; inputs not ended are CANCELLED or NOT_SUBMITTED. */
  async cancel(id: string): Promise<void> {
    await this.handle(id).cancel();
  }

  /** Re-runs the FAILED inputs of an ended pipeline, each from the stage where it failed (client/pipeline-rerun.ts). */
  async rerun(id: string): Promise<PipelineRerun> {
    return rerunPipeline(this.client, this.taskQueue, id);
  }

  /** Waits for the end; resolves with the final state (summary). */
  async result(id: string): Promise<PipelineState> {
    return this.handle(id).result();
  }

  /** Yields the state every `everyMs` until the pipeline closes. */
  async *watch(id: string, everyMs = 1000): AsyncGenerator<PipelineState> {
    const h = this.handle(id);
    for (;;) {
      const d = await h.describe();
      const s = await this.state(id).catch(() => undefined);
      if (s) yield s;
      if (d.status.name !== 'RUNNING') return;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  /** Result lines: results.jsonl once the pipeline ended, else the lines its steps have written so far. */
  async *results(id: string): AsyncGenerator<PipelineResultLine> {
    const h = this.handle(id);
    const d = await h.describe();
    const input = await this.inputOf(id);
    const out = outputStore(input.outDir);
    if (d.status.name !== 'RUNNING' && (await out.has('results.jsonl'))) {
      for await (const line of valueLines(out, 'results.jsonl')) yield line as PipelineResultLine;
      return;
    }
    const run = { workflowId: h.workflowId, runId: d.raw.workflowExecutionInfo?.firstRunId || d.runId };
    for await (const line of segmentLines(this.store, pipelineKeys.resultsPrefix(run)))
      yield line as PipelineResultLine;
  }

  /** Pipelines in the order Temporal lists them (latest run of each id); at most `limit`, after `skip`, of one `status`. */
  async list(o: ListOptions = {}): Promise<PipelineListing[]> {
    const listed = await this.listLatest(WORKFLOW_TYPES.pipeline, o);
    return listed.map((w) => ({ ...w, pipelineId: pipelineIdOf(w.workflowId) }));
  }

  /** The pipeline's workflow input, as started (every run of it carries the same). */
  async inputOf(id: string): Promise<PipelineWorkflowInput> {
    const input = await startInputOf<PipelineWorkflowInput>(this.client, pipelineWorkflowId(id));
    if (!input) throw new Error(`pipeline ${id}: no input in its history`);
    return input;
  }

  /** True when a pipeline with this id exists. */
  async exists(id: string): Promise<boolean> {
    return this.workflowExists(pipelineWorkflowId(id));
  }

  private async withStages(s: PipelineState): Promise<PipelineState> {
    const batches = await Promise.all(s.stages.map((st) => this.batches.state(st.batchId).catch(() => undefined)));
    return { ...s, stages: s.stages.map((st, k) => (batches[k] ? { ...st, batch: batches[k] } : st)) };
  }

  private handle(id: string) {
    return this.client.workflow.getHandle<typeof pipelineWorkflow>(pipelineWorkflowId(id));
  }
}

/** A stage whose batch has already ended takes no pause or resume. */
const ignoreEnded = (): undefined => undefined;
