import { z } from 'zod';
import { GpuTierId, NetworkVolume, ServerlessDiscount } from './catalog';
import { LIMITS } from './limits';
import { PodDesiredStatus } from './pod';

export const ScalerType = z.enum(['QUEUE_DELAY', 'REQUEST_COUNT']);
export type ScalerType = z.infer<typeof ScalerType>;
export const FlashBootType = z.enum(['OFF', 'FLASHBOOT']);
export type FlashBootType = z.infer<typeof FlashBootType>;

/** A serverless endpoint as the platform stores it and GraphQL returns it. */
export const Endpoint = z.object({
  id: z.string(),
  name: z.string(),
  userId: z.string(),
  gpuIds: z.string(),
  templateId: z.string(),
  idleTimeout: z.number(),
  locations: z.string(),
  flashBootType: FlashBootType,
  scalerType: ScalerType,
  scalerValue: z.number(),
  workersMin: z.number().int(),
  workersMax: z.number().int(),
  networkVolumeId: z.string().nullable(),
  version: z.number().int(),
  /** GPUs per worker (default 1). */
  gpuCount: z.number().int().optional(),
  /** Comma-separated CUDA versions; recorded only (no GPUs locally). */
  allowedCudaVersions: z.string().optional(),
  /** ISO 8601 creation time (absent on endpoints stored before it was recorded). */
  createdAt: z.string().optional(),
  /** Default executionTimeout of the endpoint's jobs, ms; 0 or absent: the platform's default. */
  executionTimeoutMs: z.number().int().optional(),
  /** Recorded only: fields the official tools send (Flash, runpodctl, REST) with no meaning locally. */
  minCudaVersion: z.string().optional(),
  workersPFBTarget: z.number().int().optional(),
  instanceIds: z.array(z.string()).optional(),
  networkVolumeIds: z.array(z.string()).optional(),
  flashEnvironmentId: z.string().optional(),
  computeType: z.string().optional(),
  modelReferences: z.array(z.string()).optional(),
});
export type Endpoint = z.infer<typeof Endpoint>;

const int = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be an integer` })
    .min(min, { error: `${field} must be at least ${min}` })
    .max(max, { error: `${field} must be at most ${max}` });

/** `gpuIds`: one GPU tier, or a comma-separated priority list of them. */
export const GpuIds = z
  .string({ error: 'gpuIds must be a string' })
  .refine((v) => v.split(',').every((g) => GpuTierId.safeParse(g.trim()).success), {
    error: (iss) =>
      `gpuIds: unknown GPU tier in ${JSON.stringify(iss.input)}; use one or more (comma-separated) of ${GpuTierId.options.join(', ')}`,
  });

/**
 * Input of `saveEndpoint`. Without `id` it creates (then `name`, `gpuIds` and `templateId` are
 * required, which the platform checks); with `id` it modifies only the fields given.
 */
export const EndpointInput = z.strictObject({
  id: z.string().min(1, { error: 'id must not be empty' }).optional(),
  name: z
    .string({ error: 'name must be a string' })
    .min(1, { error: 'name must not be empty' })
    .max(191, { error: 'name must be at most 191 characters' })
    .optional(),
  gpuIds: GpuIds.optional(),
  templateId: z
    .string({ error: 'templateId must be a string' })
    .min(1, { error: 'templateId must not be empty' })
    .optional(),
  idleTimeout: int('idleTimeout', 1, 3600).optional(),
  locations: z.string({ error: 'locations must be a string' }).nullable().optional(),
  flashBootType: z
    .enum(FlashBootType.options, { error: `flashBootType must be one of ${FlashBootType.options.join(', ')}` })
    .optional(),
  scalerType: z
    .enum(ScalerType.options, { error: `scalerType must be one of ${ScalerType.options.join(', ')}` })
    .optional(),
  scalerValue: int('scalerValue', 1, 1000).optional(),
  workersMin: int('workersMin', 0, 100).optional(),
  workersMax: int('workersMax', 0, 100).optional(),
  networkVolumeId: z.string({ error: 'networkVolumeId must be a string' }).nullable().optional(),
  gpuCount: int('gpuCount', 1, 8).optional(),
  allowedCudaVersions: z.string({ error: 'allowedCudaVersions must be a string' }).nullable().optional(),
  /** Default executionTimeout of the endpoint's jobs in ms; 0 = the platform's default (600 s). */
  executionTimeoutMs: z
    .number({ error: 'executionTimeoutMs must be a number' })
    .int({ error: 'executionTimeoutMs must be an integer' })
    .refine((v) => v === 0 || (v >= LIMITS.executionTimeoutMinMs && v <= LIMITS.executionTimeoutMaxMs), {
      error: `executionTimeoutMs must be 0 (the default) or between ${LIMITS.executionTimeoutMinMs} and ${LIMITS.executionTimeoutMaxMs}`,
    })
    .nullable()
    .optional(),
  minCudaVersion: z
    .string({ error: 'minCudaVersion must be a string' })
    .regex(/^(\d+\.\d+)?$/, { error: 'minCudaVersion must look like "12.8"' })
    .nullable()
    .optional(),
  workersPFBTarget: int('workersPFBTarget', 0, 100).nullable().optional(),
  instanceIds: z
    .array(z.string({ error: 'instanceIds entries must be strings' }), {
      error: 'instanceIds must be a list of strings',
    })
    .nullable()
    .optional(),
  networkVolumeIds: z
    .array(
      z.strictObject({
        networkVolumeId: z.string({ error: 'networkVolumeIds.networkVolumeId must be a string' }),
        dataCenterId: z.string({ error: 'networkVolumeIds.dataCenterId must be a string' }).nullable().optional(),
      }),
      { error: 'networkVolumeIds must be a list of {networkVolumeId, dataCenterId}' },
    )
    .nullable()
    .optional(),
  flashEnvironmentId: z.string({ error: 'flashEnvironmentId must be a string' }).nullable().optional(),
  computeType: z.enum(['GPU', 'CPU'], { error: 'computeType must be GPU or CPU' }).nullable().optional(),
  modelReferences: z
    .array(z.string({ error: 'modelReferences entries must be strings' }))
    .nullable()
    .optional(),
  /** Only queue-based endpoints exist locally. */
  type: z
    .literal('QB', { error: 'type: only queue-based ("QB") endpoints exist on the local platform' })
    .nullable()
    .optional(),
  /** An inline template (GraphQL): created for the endpoint instead of naming one with templateId. */
  template: z.record(z.string(), z.unknown(), { error: 'template must be an object' }).nullable().optional(),
});
export type EndpointInput = z.infer<typeof EndpointInput>;

/** Defaults of an endpoint created without these fields (the official clients' defaults). */
export const ENDPOINT_DEFAULTS = {
  idleTimeout: 5,
  locations: '',
  flashBootType: 'OFF',
  scalerType: 'QUEUE_DELAY',
  scalerValue: 4,
  workersMin: 0,
  workersMax: 3,
  networkVolumeId: null,
} as const satisfies Partial<Endpoint>;

/** A worker pod as listed under an endpoint (`pods { id desiredStatus slsVersion }`). */
export const EndpointPod = z.looseObject({
  id: z.string(),
  desiredStatus: PodDesiredStatus,
  slsVersion: z.number().int().optional(),
});
export type EndpointPod = z.infer<typeof EndpointPod>;

/** An endpoint as the GraphQL API returns it to the project's client (its fixed selection). */
export const EndpointView = z.looseObject({
  ...Endpoint.pick({
    id: true,
    name: true,
    gpuIds: true,
    templateId: true,
    idleTimeout: true,
    flashBootType: true,
    scalerType: true,
    scalerValue: true,
    workersMin: true,
    workersMax: true,
    networkVolumeId: true,
    version: true,
  }).shape,
  locations: z.string().nullable(),
  gpuCount: z.number().int(),
  pods: z.array(EndpointPod).optional(),
  networkVolume: NetworkVolume.nullable().optional(),
});
export type EndpointView = z.infer<typeof EndpointView>;

/** `myself { endpoints { ... } serverlessDiscount { ... } }`. */
export const MyEndpoints = z.looseObject({
  endpoints: z.array(EndpointView),
  serverlessDiscount: ServerlessDiscount.nullable(),
});
export type MyEndpoints = z.infer<typeof MyEndpoints>;
