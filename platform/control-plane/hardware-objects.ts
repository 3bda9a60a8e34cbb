/** The spec's GPU, machine and network-volume objects of the simulated hosts, priced from the catalog's tiers (display only). */
import { type Gpu, type GpuTierId, type Machine, type NetworkVolume } from '../../contracts';
import { CPU_TYPES, GPU_TIERS } from './catalog';
import { DATA_CENTERS } from './data-centers';

const round = (n: number): number => Math.round(n * 1000) / 1000;

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
