import { z } from 'zod';

/** GPU tier identifiers accepted by `saveEndpoint(gpuIds: ...)`. */
export const GpuTierId = z.enum([
  'AMPERE_16',
  'AMPERE_24',
  'ADA_24',
  'AMPERE_48',
  'ADA_48_PRO',
  'AMPERE_80',
  'ADA_80_PRO',
]);
export type GpuTierId = z.infer<typeof GpuTierId>;

export const Gpu = z.object({
  id: z.string(),
  count: z.number().int(),
  displayName: z.string(),
  securePrice: z.number(),
  communityPrice: z.number(),
  oneMonthPrice: z.number(),
  threeMonthPrice: z.number(),
  sixMonthPrice: z.number(),
  oneWeekPrice: z.number(),
  communitySpotPrice: z.number(),
  secureSpotPrice: z.number(),
});
export type Gpu = z.infer<typeof Gpu>;

export const CpuType = z.object({
  id: z.string(),
  displayName: z.string(),
  cores: z.number(),
  threadsPerCore: z.number(),
  groupId: z.string(),
});

export const Machine = z.object({
  minPodGpuCount: z.number(),
  gpuTypeId: z.string(),
  gpuType: Gpu,
  cpuCount: z.number(),
  cpuTypeId: z.string(),
  cpuType: CpuType,
  location: z.string(),
  dataCenterId: z.string(),
  diskThroughputMBps: z.number(),
  maxDownloadSpeedMbps: z.number(),
  maxUploadSpeedMbps: z.number(),
  supportPublicIp: z.boolean(),
  secureCloud: z.boolean(),
  maintenanceStart: z.string(),
  maintenanceEnd: z.string(),
  maintenanceNote: z.string(),
  note: z.string(),
  costPerHr: z.number(),
  currentPricePerGpu: z.number(),
  gpuAvailable: z.number(),
  gpuDisplayName: z.string(),
});
export type Machine = z.infer<typeof Machine>;

export const NetworkVolume = z.object({
  id: z.string(),
  name: z.string(),
  size: z.number().int(),
  dataCenterId: z.string(),
});
export type NetworkVolume = z.infer<typeof NetworkVolume>;

export const SavingsPlan = z.object({
  id: z.string(),
  podId: z.string(),
  gpuTypeId: z.string(),
  costPerHr: z.number(),
  startTime: z.string(),
  endTime: z.string(),
});
export type SavingsPlan = z.infer<typeof SavingsPlan>;

export const ServerlessDiscount = z.object({
  discountFactor: z.number(),
  type: z.string(),
  expirationDate: z.string().nullable(),
});
export type ServerlessDiscount = z.infer<typeof ServerlessDiscount>;
