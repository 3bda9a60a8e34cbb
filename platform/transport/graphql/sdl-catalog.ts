/** GraphQL SDL of the hardware catalog queries: gpuTypes, dataCenters and serverlessGpuPools. */
/**
 * The catalog as `gpuTypes`, `dataCenters` and `serverlessGpuPools` show it (the fields
 * runpodctl's `gpu list`, `datacenter list` and `serverless create` select). Every simulated
 * GPU type is in stock in every data center.
 */
export const CATALOG_SDL = /* GraphQL */ `
  input GpuTypeFilter {
    id: String
  }

  type GpuType {
    id: String!
    displayName: String!
    memoryInGb: Int!
    secureCloud: Boolean!
    communityCloud: Boolean!
    """
    The serverless tier (gpuIds value) the type belongs to.
    """
    pool: String!
  }

  type DataCenter {
    id: String!
    name: String!
    location: String!
    gpuAvailability: [GpuAvailability!]!
  }

  type GpuAvailability {
    gpuTypeId: String!
    displayName: String!
    """
    High: every simulated GPU type is available locally.
    """
    stockStatus: String!
  }

  type ServerlessGpuPool {
    id: String!
    gpuTypeIds: [String!]!
  }
`;
