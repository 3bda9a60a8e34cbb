import { z } from 'zod';
import { Gpu, Machine, NetworkVolume, SavingsPlan } from './catalog';
import { Template } from './template';

export const PodDesiredStatus = z.enum(['RUNNING', 'EXITED', 'TERMINATED']);
export type PodDesiredStatus = z.infer<typeof PodDesiredStatus>;

/** The Pod object of `GET /v1/pods/{podId}`. */
export const Pod = z.object({
  id: z.string(),
  name: z.string().max(191),
  image: z.string(),
  desiredStatus: PodDesiredStatus,
  adjustedCostPerHr: z.number(),
  costPerHr: z.number(),
  aiApiId: z.string().nullable(),
  endpointId: z.string().nullable(),
  slsVersion: z.number().int(),
  templateId: z.string().nullable(),
  consumerUserId: z.string(),
  containerDiskInGb: z.number().int(),
  containerRegistryAuthId: z.string().nullable(),
  cpuFlavorId: z.string().nullable(),
  dockerEntrypoint: z.array(z.string()),
  dockerStartCmd: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  gpu: Gpu.nullable(),
  interruptible: z.boolean(),
  lastStartedAt: z.string(),
  lastStatusChange: z.string(),
  locked: z.boolean(),
  machine: Machine.optional(),
  machineId: z.string(),
  memoryInGb: z.number(),
  networkVolume: NetworkVolume.optional(),
  portMappings: z.record(z.string(), z.number().int()),
  ports: z.array(z.string()),
  publicIp: z.string().nullable(),
  savingsPlans: z.array(SavingsPlan).optional(),
  template: Template.optional(),
  vcpuCount: z.number(),
  volumeEncrypted: z.boolean(),
  volumeInGb: z.number().int(),
  volumeMountPath: z.string(),
});
export type Pod = z.infer<typeof Pod>;

/** The `include*` query flags of `GET /v1/pods/{podId}` (all default false). */
export interface PodIncludes {
  machine?: boolean;
  networkVolume?: boolean;
  savingsPlans?: boolean;
  template?: boolean;
  /** Serverless worker pods are only found with this set. */
  workers?: boolean;
}
