import { z } from 'zod';
import { GpuTierId } from './catalog';

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
});
export type Endpoint = z.infer<typeof Endpoint>;

/** Input of `saveEndpoint`; required fields are checked on create only. */
export const EndpointInput = z.strictObject({
  id: z.string().optional(),
  name: z.string().min(1).max(191).optional(),
  gpuIds: z.string().refine((v) => v.split(',').every((g) => GpuTierId.safeParse(g.trim()).success), {
    error: `gpuIds must be one or more of ${GpuTierId.options.join(', ')}`,
  }).optional(),
  templateId: z.string().min(1).optional(),
  idleTimeout: z.number().int().min(1).max(3600).optional(),
  locations: z.string().optional(),
  flashBootType: FlashBootType.optional(),
  scalerType: ScalerType.optional(),
  scalerValue: z.number().int().min(1).max(1000).optional(),
  workersMin: z.number().int().min(0).max(1000).optional(),
  workersMax: z.number().int().min(0).max(1000).optional(),
  networkVolumeId: z.string().nullable().optional(),
});
export type EndpointInput = z.infer<typeof EndpointInput>;

/** Defaults of an endpoint created without these fields. */
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
