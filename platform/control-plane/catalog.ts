/** The simulated hardware catalog: GPU tiers, CPUs, machines, data centers and network volumes. */
import { type Gpu, type GpuTierId, type Machine, type NetworkVolume } from '../../contracts';

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

/** Data centers `locations` may name (by id or by country code). The first is the default. */
export const DATA_CENTERS: readonly { id: string; country: string; location: string }[] = [
  { id: 'US-TX-3', country: 'US', location: 'United States' },
  { id: 'US-GA-1', country: 'US', location: 'United States' },
  { id: 'US-IL-1', country: 'US', location: 'United States' },
  { id: 'CA-MTL-1', country: 'CA', location: 'Canada' },
  { id: 'EU-RO-1', country: 'RO', location: 'Romania' },
  { id: 'EU-CZ-1', country: 'CZ', location: 'Czech Republic' },
  { id: 'EU-FR-1', country: 'FR', location: 'France' },
  { id: 'EU-NL-1', country: 'NL', location: 'Netherlands' },
  { id: 'EU-SE-1', country: 'SE', location: 'Sweden' },
  { id: 'EUR-NO-1', country: 'NO', location: 'Norway' },
  { id: 'EUR-IS-1', country: 'IS', location: 'Iceland' },
  { id: 'EU-GB-1', country: 'GB', location: 'United Kingdom' },
  { id: 'AP-JP-1', country: 'JP', location: 'Japan' },
  { id: 'OC-AU-1', country: 'AU', location: 'Australia' },
  // The rest of the ids the REST reference (dataCenterIds) and Flash (locations) name.
  ...[
    'US-CA-2',
    'US-DE-1',
    'US-GA-2',
    'US-KS-2',
    'US-KS-3',
    'US-MO-1',
    'US-MO-2',
    'US-NC-1',
    'US-NC-2',
    'US-NE-1',
    'US-TX-1',
    'US-TX-4',
    'US-WA-1',
  ].map((id) => ({ id, country: 'US', location: 'United States' })),
  ...['CA-MTL-2', 'CA-MTL-3'].map((id) => ({ id, country: 'CA', location: 'Canada' })),
  ...['EUR-IS-2', 'EUR-IS-3'].map((id) => ({ id, country: 'IS', location: 'Iceland' })),
];

const round = (n: number): number => Math.round(n * 1000) / 1000;

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

/** The tokens of `locations` that name no known data center or country (empty: all valid). */
export function unknownLocations(locations: string): string[] {
  return splitList(locations).filter((l) => !DATA_CENTERS.some((d) => d.id === l || d.country === l));
}

/** Where a worker of an endpoint with these `locations` is placed: the first matching data center. */
export function placeIn(locations: string): (typeof DATA_CENTERS)[number] {
  const wanted = splitList(locations);
  return (
    DATA_CENTERS.find((d) => wanted.length === 0 || wanted.includes(d.id) || wanted.includes(d.country)) ??
    DATA_CENTERS[0]!
  );
}

/** Per-hour cost of one worker of `tier` with `count` GPUs. */
export const costPerHr = (tier: GpuTierId, count: number): number => round(GPU_TIERS[tier].flexPerHr * count);

/** The spec's GPU object. Pod prices are derived from the flex rate by fixed ratios (display only). */
export function gpuObject(tier: GpuTierId, count: number): Gpu {
  const t = GPU_TIERS[tier];
  const secure = t.flexPerHr * 0.6;
  return {
    id: t.gpuTypeId,
    count,
    displayName: t.displayName,
    securePrice: round(secure),
    communityPrice: round(secure * 0.8),
    oneWeekPrice: round(secure * 0.95),
    oneMonthPrice: round(secure * 0.9),
    threeMonthPrice: round(secure * 0.85),
    sixMonthPrice: round(secure * 0.8),
    secureSpotPrice: round(secure * 0.5),
    communitySpotPrice: round(secure * 0.4),
  };
}

/** vCPUs and RAM of a worker of `tier` with `count` GPUs. */
export const resourcesOf = (tier: GpuTierId, count: number): { vcpuCount: number; memoryInGb: number } => ({
  vcpuCount: GPU_TIERS[tier].vcpuPerGpu * count,
  memoryInGb: GPU_TIERS[tier].ramPerGpuInGb * count,
});

/** Id of the simulated host of a worker: one machine per data center and tier. */
export const machineIdOf = (tier: GpuTierId, dataCenterId: string): string =>
  `local-${dataCenterId.toLowerCase()}-${tier.toLowerCase().replace(/_/g, '')}`;

/** The spec's machine object of the simulated host. */
export function machineObject(tier: GpuTierId, count: number, dataCenterId: string): Machine {
  const t = GPU_TIERS[tier];
  const dc = DATA_CENTERS.find((d) => d.id === dataCenterId) ?? DATA_CENTERS[0]!;
  const cpu = CPU_TYPES[t.cpuTypeId]!;
  return {
    minPodGpuCount: 1,
    gpuTypeId: t.gpuTypeId,
    gpuType: gpuObject(tier, 1),
    cpuCount: cpu.cores * cpu.threadsPerCore,
    cpuTypeId: t.cpuTypeId,
    cpuType: { id: t.cpuTypeId, ...cpu },
    location: dc.location,
    dataCenterId: dc.id,
    diskThroughputMBps: 2000,
    maxDownloadSpeedMbps: 1000,
    maxUploadSpeedMbps: 1000,
    supportPublicIp: false,
    secureCloud: true,
    maintenanceStart: '',
    maintenanceEnd: '',
    maintenanceNote: '',
    note: 'simulated host of the local sluice platform',
    costPerHr: costPerHr(tier, count),
    currentPricePerGpu: round(t.flexPerHr),
    gpuAvailable: 8,
    gpuDisplayName: t.displayName,
  };
}

/** A network volume as reported locally: there is no volume store, so only the id is real. */
export const networkVolumeObject = (id: string, dataCenterId: string): NetworkVolume => ({
  id,
  name: id,
  size: 0,
  dataCenterId,
});

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

function splitList(v: string): string[] {
  return v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
