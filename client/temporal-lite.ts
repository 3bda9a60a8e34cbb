/**
 * Temporal's workflow service for a short command: start, describe, query and wait for the close,
 * each a unary call of grpc-wire.ts (Node's http2, the messages' few fields written and read by
 * number), without loading @temporalio/client, gRPC-js or the protobuf root (issue 23: a small
 * batch's fixed cost). Payloads are `json/plain`, as sluice's data converter writes them without a
 * codec; {@link liteTemporal} says when the settings allow it (else the full client).
 */
import { randomUUID } from 'node:crypto';
import { GrpcChannel, Reader, message, messageField, stringField, varintField, bytesField } from './grpc-wire';

export { GrpcError, GRPC_CODES } from './grpc-wire';

/** What {@link liteTemporal} reads of the settings. */
export interface LiteTemporalSettings {
  SLUICE_PAYLOAD_KEY_FILE?: string | undefined;
  temporal: {
    address: string;
    apiKey?: string | undefined;
    tls?: unknown;
    grpcMeta?: Record<string, string> | undefined;
  };
}

/**
 * The address when the light client can do what the full one would: no payload codec, no TLS, no
 * API key, no gRPC metadata (tracing is the caller's to check); else undefined.
 */
export function liteTemporal(c: LiteTemporalSettings): string | undefined {
  const t = c.temporal;
  const tls = t.tls !== undefined && !(t.tls as { disabled?: boolean } | undefined)?.disabled;
  const fullOnly = c.SLUICE_PAYLOAD_KEY_FILE || t.apiKey || tls || Object.keys(t.grpcMeta ?? {}).length > 0;
  return fullOnly ? undefined : t.address;
}

const SERVICE = '/temporal.api.workflowservice.v1.WorkflowService';
/** WorkflowExecutionStatus by number, named as the full client names them. */
const STATUS = [
  'UNSPECIFIED',
  'RUNNING',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
  'TERMINATED',
  'CONTINUED_AS_NEW',
  'TIMED_OUT',
];
const REJECT_DUPLICATE = 3;
const CLOSE_EVENT = 2;

/** A `json/plain` payload (temporal.api.common.v1.Payload: metadata map, data). */
const jsonPayload = (field: number, value: unknown) =>
  messageField(
    field,
    messageField(1, stringField(1, 'encoding'), bytesField(2, Buffer.from('json/plain'))),
    bytesField(2, Buffer.from(JSON.stringify(value))),
  );

/** The first payload's value of a Payloads message (undefined for none or `binary/null`). */
function firstValue(payloads: Reader | undefined): unknown {
  const p = payloads?.messages(1)[0];
  if (!p) return undefined;
  const meta = new Map(p.messages(1).map((e) => [e.string(1), e.string(2)]));
  const encoding = meta.get('encoding');
  if (encoding === 'binary/null') return undefined;
  if (encoding !== 'json/plain') throw new Error(`payload encoding ${encoding} needs the full Temporal client`);
  return JSON.parse(p.string(2));
}

/** A workflow that ended otherwise than completed; `cause` holds its failure's message, as the full client's WorkflowFailedError does. */
export class WorkflowEndedError extends Error {
  constructor(
    readonly status: string,
    cause: string | undefined,
  ) {
    super(`Workflow execution ${status.toLowerCase().replace(/_/g, ' ')}`, cause ? { cause: new Error(cause) } : {});
    this.name = 'WorkflowEndedError';
  }
}

/** One namespace of a Temporal server, over one connection. */
export class TemporalLite {
  private readonly channel: GrpcChannel;

  constructor(
    address: string,
    private readonly namespace: string,
  ) {
    this.channel = new GrpcChannel(address, { 'temporal-namespace': namespace });
  }

  private execution = (workflowId: string, runId = '') =>
    messageField(2, stringField(1, workflowId), ...(runId ? [stringField(2, runId)] : []));

  /** Starts workflow `type` with `args` (a taken id: a GrpcError of code 6, already exists); resolves with its run id. */
  async start(o: { workflowId: string; type: string; taskQueue: string; args: unknown[]; rejectDuplicate?: boolean }) {
    const request = message(
      stringField(1, this.namespace),
      stringField(2, o.workflowId),
      messageField(3, stringField(1, o.type)),
      messageField(4, stringField(1, o.taskQueue)),
      messageField(5, ...o.args.map((a) => jsonPayload(1, a))),
      stringField(10, randomUUID()),
      ...(o.rejectDuplicate ? [varintField(11, REJECT_DUPLICATE)] : []),
    );
    return new Reader(await this.channel.call(`${SERVICE}/StartWorkflowExecution`, request)).string(1);
  }

  /** The latest run's status (RUNNING, COMPLETED, ...) and its pending activities, as the full client's describe has them. */
  async describe(workflowId: string) {
    const request = message(stringField(1, this.namespace), this.execution(workflowId));
    const r = new Reader(await this.channel.call(`${SERVICE}/DescribeWorkflowExecution`, request));
    const pendingActivities = r.messages(3).map((a) => ({
      activityType: { name: a.message(2)?.string(1) ?? '' },
      attempt: a.number(7),
      lastFailure: a.has(11) ? { message: a.message(11)!.string(1) } : undefined,
    }));
    return { status: STATUS[r.message(2)?.number(5) ?? 0] ?? 'UNKNOWN', pendingActivities };
  }

  /** A query's answer (its first payload's value). */
  async query<T>(workflowId: string, queryType: string): Promise<T> {
    const request = message(
      stringField(1, this.namespace),
      this.execution(workflowId),
      messageField(3, stringField(1, queryType)),
    );
    const r = new Reader(await this.channel.call(`${SERVICE}/QueryWorkflow`, request));
    if (r.has(2)) throw new Error(`query rejected: the workflow is ${STATUS[r.message(2)!.number(1)] ?? 'closed'}`);
    return firstValue(r.message(1)) as T;
  }

  /**
   * Waits for the workflow's end (a long poll of its close event, following continued runs) and
   * resolves with its result; a run that failed, was cancelled, terminated or timed out rejects
   * with a {@link WorkflowEndedError}.
   */
  async result<T>(workflowId: string): Promise<T> {
    let runId = '';
    let pageToken: Buffer | undefined;
    for (;;) {
      const request = message(
        stringField(1, this.namespace),
        this.execution(workflowId, runId),
        ...(pageToken ? [bytesField(4, pageToken)] : []),
        varintField(5, 1),
        varintField(6, CLOSE_EVENT),
      );
      const r = new Reader(await this.channel.call(`${SERVICE}/GetWorkflowExecutionHistory`, request));
      const event = r.message(1)?.messages(1).at(-1);
      if (!event) {
        pageToken = r.bytes(3); // the long poll's time ran out: ask again
        continue;
      }
      pageToken = undefined;
      const completed = event.message(7);
      if (completed) return firstValue(completed.message(1)) as T;
      const continued = event.message(33)?.string(1);
      if (continued) {
        runId = continued;
        continue;
      }
      throw closedOtherwise(event);
    }
  }

  /** Connects now (the first call would): see GrpcChannel.connect. */
  connect(): void {
    this.channel.connect();
  }

  close(): void {
    this.channel.close();
  }
}

/** The error of a close event other than completed or continued. */
function closedOtherwise(event: Reader): WorkflowEndedError {
  if (event.has(8)) return new WorkflowEndedError('FAILED', event.message(8)!.message(1)?.string(1));
  if (event.has(27)) return new WorkflowEndedError('TERMINATED', event.message(27)!.string(1) || undefined);
  if (event.has(29)) return new WorkflowEndedError('CANCELLED', undefined);
  if (event.has(9)) return new WorkflowEndedError('TIMED_OUT', undefined);
  return new WorkflowEndedError('UNKNOWN', `close event of type ${event.number(3)}`);
}
