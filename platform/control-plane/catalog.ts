/**
 * The simulated hardware catalog: its GPU tiers and CPUs, and the lookups of a tier. Where workers
 * are placed: data-centers.ts; the spec's objects priced from the tiers: hardware-objects.ts.
 */
import { type GpuTierId } from '../../contracts';

/**
 * The simulated hardware catalog: what a local worker reports it runs on. There are no GPUs
 * locally; the names follow the service's serverless tiers and the prices are its public
 * per-hour flex rates, rounded (display only: nothing is billed).
 */
interface Tier {
  gpuTypeId: string;
  displayName: string;
  memoryInGb: number;
  /** Serverless flex price of one worker with one GPU, credits per hour. */
  flexPerHr: number;
  vcpuPerGpu: number;
  ramPerGpuInGb: number;
  cpuTypeId: string;
}

export const GPU_TIERS: Readonly<Record<GpuTierId, Tier>> = {
  AMPERE_16: {
    gpuTypeId: 'NVIDIA RTX A4000',
    displayName: 'RTX A4000',
    memoryInGb: 16,
    flexPerHr: 0.58,
    vcpuPerGpu: 6,
    ramPerGpuInGb: 31,
    cpuTypeId: 'AMD EPYC 7343 16-Core Processor',
  },
  AMPERE_24: {
    gpuTypeId: 'NVIDIA RTX A5000',
    displayName: 'RTX A5000',
    memoryInGb: 24,
    flexPerHr: 0.68,
    vcpuPerGpu: 8,
    ramPerGpuInGb: 46,
    cpuTypeId: 'AMD EPYC 7343 16-Core Processor',
  },
  ADA_24: {
    gpuTypeId: 'NVIDIA GeForce RTX 4090',
    displayName: 'RTX 4090',
    memoryInGb: 24,
    flexPerHr: 1.12,
    vcpuPerGpu: 8,
    ramPerGpuInGb: 62,
    cpuTypeId: 'AMD EPYC 7763 64-Core Processor',
  },
  AMPERE_48: {
    gpuTypeId: 'NVIDIA RTX A6000',
    displayName: 'RTX A6000',
    memoryInGb: 48,
    flexPerHr: 1.22,
    vcpuPerGpu: 9,
    ramPerGpuInGb: 50,
    cpuTypeId: 'AMD EPYC 7763 64-Core Processor',
  },
  ADA_48_PRO: {
    gpuTypeId: 'NVIDIA L40S',
    displayName: 'L40S',
    memoryInGb: 48,
    flexPerHr: 1.91,
    vcpuPerGpu: 12,
    ramPerGpuInGb: 94,
    cpuTypeId: 'AMD EPYC 9354 32-Core Processor',
  },
  AMPERE_80: {
    gpuTypeId: 'NVIDIA A100 80GB PCIe',
    displayName: 'A100 PCIe',
    memoryInGb: 80,
    flexPerHr: 2.74,
    vcpuPerGpu: 16,
    ramPerGpuInGb: 117,
    cpuTypeId: 'AMD EPYC 7763 64-Core Processor',
  },
  ADA_80_PRO: {
    gpuTypeId: 'NVIDIA H100 80GB HBM3',
    displayName: 'H100 SXM',
    memoryInGb: 80,
    flexPerHr: 4.18,
    vcpuPerGpu: 20,
    ramPerGpuInGb: 188,
    cpuTypeId: 'AMD EPYC 9354 32-Core Processor',
  },
};

export const CPU_TYPES: Readonly<
  Record<string, { displayName: string; cores: number; threadsPerCore: number; groupId: string }>
> = {
  'AMD EPYC 7343 16-Core Processor': {
    displayName: 'EPYC 7343',
    cores: 16,
    threadsPerCore: 2,
    groupId: 'AMD EPYC 7003 Series',
  },
  'AMD EPYC 7763 64-Core Processor': {
    displayName: 'EPYC 7763',
    cores: 64,
    threadsPerCore: 2,
    groupId: 'AMD EPYC 7003 Series',
  },
  'AMD EPYC 9354 32-Core Processor': {
    displayName: 'EPYC 9354',
    cores: 32,
    threadsPerCore: 2,
    groupId: 'AMD EPYC 9004 Series',
  },
};

/**
 * The tier of an endpoint created without one (`saveEndpoint` without `gpuIds`, REST without
 * `gpuTypeIds`): the first and cheapest. The spec requires `gpuIds`, but the service accepts a
 * create without it, and runpodctl's `serverless create` sends none unless `--gpu-id` is given.
 */
export const DEFAULT_GPU_TIER: GpuTierId = 'AMPERE_16';

/** The tiers of a `gpuIds` value, in priority order (the value is validated beforehand). */
export function tiersOf(gpuIds: string): GpuTierId[] {
  return gpuIds
    .split(',')
    .map((g) => g.trim())
    .filter((g): g is GpuTierId => g in GPU_TIERS);
}

/** The GPU types of the catalog (GraphQL `gpuTypes`): one per tier, in stock everywhere. */
export const gpuTypes = (): {
  id: string;
  displayName: string;
  memoryInGb: number;
  secureCloud: boolean;
  communityCloud: boolean;
  pool: GpuTierId;
}[] =>
  (Object.entries(GPU_TIERS) as [GpuTierId, Tier][]).map(([pool, t]) => ({
    id: t.gpuTypeId,
    displayName: t.displayName,
    memoryInGb: t.memoryInGb,
    secureCloud: true,
    communityCloud: true,
    pool,
  }));

/** The tier of a GPU type id (REST `gpuTypeIds`), or undefined when the catalog has no such type. */
export const tierOfGpuType = (gpuTypeId: string): GpuTierId | undefined =>
  (Object.keys(GPU_TIERS) as GpuTierId[]).find((tier) => GPU_TIERS[tier].gpuTypeId === gpuTypeId);
