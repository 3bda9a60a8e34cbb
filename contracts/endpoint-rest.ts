import { z } from 'zod';
import { LIMITS } from './limits';
import { Pod } from './pod';
import { Template } from './template';

const int = (field: string, min: number, max: number) =>
  z
    .number({ error: `${field} must be a number` })
    .int({ error: `${field} must be an integer` })
    .min(min, { error: `${field} must be at least ${min}` })
    .max(max, { error: `${field} must be at most ${max}` });
const strings = (field: string) =>
  z.array(z.string({ error: `${field} entries must be strings` }), { error: `${field} must be a list of strings` });

/**
 * Body of `PATCH /v1/endpoints/{id}` and `POST /v1/endpoints/{id}/update` (RunPod's REST
 * reference, `EndpointUpdateInput`): only the given fields change.
 */
export const RestEndpointUpdate = z.strictObject({
  name: z
    .string({ error: 'name must be a string' })
    .min(1, { error: 'name must not be empty' })
    .max(191, { error: 'name must be at most 191 characters' })
    .optional(),
  templateId: z
    .string({ error: 'templateId must be a string' })
    .min(1, { error: 'templateId must not be empty' })
    .optional(),
  gpuTypeIds: strings('gpuTypeIds').min(1, { error: 'gpuTypeIds must name at least one GPU type' }).optional(),
  gpuCount: int('gpuCount', 1, 8).optional(),
  dataCenterIds: strings('dataCenterIds').optional(),
  allowedCudaVersions: strings('allowedCudaVersions').optional(),
  minCudaVersion: z.string({ error: 'minCudaVersion must be a string' }).optional(),
  computeType: z.enum(['GPU', 'CPU'], { error: 'computeType must be GPU or CPU' }).optional(),
  cpuFlavorIds: strings('cpuFlavorIds').optional(),
  vcpuCount: int('vcpuCount', 1, 512).optional(),
  executionTimeoutMs: int('executionTimeoutMs', 0, LIMITS.executionTimeoutMaxMs).optional(),
  flashboot: z.boolean({ error: 'flashboot must be a boolean' }).optional(),
  idleTimeout: int('idleTimeout', 1, 3600).optional(),
  networkVolumeId: z.string({ error: 'networkVolumeId must be a string' }).optional(),
  networkVolumeIds: strings('networkVolumeIds').optional(),
  scalerType: z
    .enum(['QUEUE_DELAY', 'REQUEST_COUNT'], { error: 'scalerType must be QUEUE_DELAY or REQUEST_COUNT' })
    .optional(),
  scalerValue: int('scalerValue', 1, 1000).optional(),
  workersMax: int('workersMax', 0, 100).optional(),
  workersMin: int('workersMin', 0, 100).optional(),
});
export type RestEndpointUpdate = z.infer<typeof RestEndpointUpdate>;

/** Body of `POST /v1/endpoints` (`EndpointCreateInput`): `templateId` required. */
export const RestEndpointCreate = RestEndpointUpdate.extend({
  templateId: z.string({ error: 'templateId is required' }).min(1, { error: 'templateId must not be empty' }),
});
export type RestEndpointCreate = z.infer<typeof RestEndpointCreate>;

/** An endpoint as the REST API returns it (the reference's `Endpoint`). */
export const RestEndpoint = z.looseObject({
  id: z.string(),
  name: z.string(),
  userId: z.string(),
  templateId: z.string(),
  version: z.number().int(),
  computeType: z.string(),
  createdAt: z.string().optional(),
  dataCenterIds: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  executionTimeoutMs: z.number().int(),
  gpuCount: z.number().int(),
  gpuTypeIds: z.array(z.string()),
  instanceIds: z.array(z.string()),
  idleTimeout: z.number().int(),
  networkVolumeId: z.string().nullable(),
  networkVolumeIds: z.array(z.string()),
  scalerType: z.string(),
  scalerValue: z.number().int(),
  workersMax: z.number().int(),
  workersMin: z.number().int(),
  allowedCudaVersions: z.array(z.string()),
  minCudaVersion: z.string().nullable(),
  template: Template.optional(),
  workers: z.array(Pod).optional(),
});
export type RestEndpoint = z.infer<typeof RestEndpoint>;
