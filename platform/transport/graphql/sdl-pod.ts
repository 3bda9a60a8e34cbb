/** GraphQL SDL of the worker Pod and hardware types. */
/**
 * The GraphQL worker Pod and hardware types: the REST Pod's fields (spec "Pod (REST response)")
 * under the same names, with `env` as `{key, value}` pairs like the rest of the GraphQL API.
 */
export const POD_SDL = /* GraphQL */ `
  type Pod {
    id: String!
    name: String!
    image: String!
    imageName: String!
    desiredStatus: PodDesiredStatus!
    adjustedCostPerHr: Float!
    costPerHr: Float!
    aiApiId: String
    endpointId: String
    slsVersion: Int!
    templateId: String
    consumerUserId: String!
    containerDiskInGb: Int!
    containerRegistryAuthId: String
    cpuFlavorId: String
    dockerEntrypoint: [String!]!
    dockerStartCmd: [String!]!
    env: [EnvironmentVariable!]!
    gpu: Gpu
    gpuCount: Int!
    interruptible: Boolean!
    lastStartedAt: String!
    lastStatusChange: String!
    locked: Boolean!
    machineId: String!
    machine: Machine!
    memoryInGb: Float!
    networkVolume: NetworkVolume
    ports: [String!]!
    publicIp: String
    savingsPlans: [SavingsPlan!]!
    vcpuCount: Float!
    volumeEncrypted: Boolean!
    volumeInGb: Int!
    volumeMountPath: String!
  }

  type Gpu {
    id: String!
    count: Int!
    displayName: String!
    securePrice: Float!
    communityPrice: Float!
    oneMonthPrice: Float!
    threeMonthPrice: Float!
    sixMonthPrice: Float!
    oneWeekPrice: Float!
    communitySpotPrice: Float!
    secureSpotPrice: Float!
  }

  type CpuType {
    id: String!
    displayName: String!
    cores: Float!
    threadsPerCore: Float!
    groupId: String!
  }

  type Machine {
    minPodGpuCount: Float!
    gpuTypeId: String!
    gpuType: Gpu!
    cpuCount: Float!
    cpuTypeId: String!
    cpuType: CpuType!
    location: String!
    dataCenterId: String!
    diskThroughputMBps: Float!
    maxDownloadSpeedMbps: Float!
    maxUploadSpeedMbps: Float!
    supportPublicIp: Boolean!
    secureCloud: Boolean!
    maintenanceStart: String!
    maintenanceEnd: String!
    maintenanceNote: String!
    note: String!
    costPerHr: Float!
    currentPricePerGpu: Float!
    gpuAvailable: Float!
    gpuDisplayName: String!
  }

  type NetworkVolume {
    id: String!
    name: String!
    size: Int!
    dataCenterId: String!
  }

  type SavingsPlan {
    id: String!
    podId: String!
    gpuTypeId: String!
    costPerHr: Float!
    startTime: String!
    endTime: String!
  }
`;
