/** GraphQL SDL of the control plane: queries, mutations, the user and endpoints. */
/**
 * The control-plane GraphQL schema: the service's endpoint and template operations with the
 * field names its docs and the official tools (Python client, runpodctl, Flash) use. Templates
 * are in sdl-template.ts, the Pod and hardware types in sdl-pod.ts and sdl-catalog.ts.
 */
export const SDL = /* GraphQL */ `
  """
  A mutation with no result: always null.
  """
  scalar Void
  """
  Any JSON value (recorded settings the platform does not interpret).
  """
  scalar JSON

  enum FlashBootType {
    OFF
    FLASHBOOT
  }
  enum PodDesiredStatus {
    RUNNING
    EXITED
    TERMINATED
  }

  type Query {
    """
    The caller: their endpoints, templates and serverless discount.
    """
    myself: User!
    """
    One template the caller may read (their own or a public one); null when unknown.
    """
    podTemplate(id: String!): PodTemplate
    """
    Official (isRunpod) and public templates the caller can see, filtered by the input; the caller's private ones are under myself.
    """
    podTemplates(input: PodTemplateInput): [PodTemplate!]!
    """
    The simulated GPU types of the catalog.
    """
    gpuTypes(input: GpuTypeFilter): [GpuType!]!
    """
    The data centers of the catalog with their (simulated) GPU stock.
    """
    dataCenters: [DataCenter!]!
    """
    The serverless GPU pools (the tiers gpuIds names) and their GPU types.
    """
    serverlessGpuPools: [ServerlessGpuPool!]!
  }

  type Mutation {
    """
    Creates an endpoint (no id) or modifies one (with id).
    """
    saveEndpoint(input: EndpointInput!): Endpoint
    """
    Deletes an endpoint whose workersMin and workersMax are both 0. Returns null.
    """
    deleteEndpoint(id: String!): Void
    """
    Points an endpoint at another template (a rolling release). input is nullable as in the service; a missing one is a BAD_USER_INPUT.
    """
    updateEndpointTemplate(input: UpdateEndpointTemplateInput): Endpoint
    """
    Creates a template (no id) or modifies one (with id; a rolling release of its endpoints). input is nullable as in the service.
    """
    saveTemplate(input: SaveTemplateInput): PodTemplate
    """
    Deletes one of the caller's templates by name; refused while an endpoint uses it. Returns null.
    """
    deleteTemplate(templateName: String): Void
  }

  type User {
    id: String!
    """
    Local users have no e-mail address: <name>@localhost.
    """
    email: String
    """
    Nothing is billed locally: always 0.
    """
    clientBalance: Float!
    """
    What the caller's running workers would cost per hour (display only).
    """
    currentSpendPerHr: Float!
    spendLimit: Float
    notifyPodsStale: Boolean!
    notifyPodsGeneral: Boolean!
    notifyLowBalance: Boolean!
    pubKey: String
    endpoints: [Endpoint!]!
    podTemplates: [PodTemplate!]!
    networkVolumes: [NetworkVolume!]!
    serverlessDiscount: ServerlessDiscount
  }

  type ServerlessDiscount {
    discountFactor: Float!
    type: String!
    expirationDate: String
  }

  input EndpointInput {
    id: String
    name: String
    gpuIds: String
    templateId: String
    idleTimeout: Int
    locations: String
    flashBootType: FlashBootType
    scalerType: String
    scalerValue: Int
    workersMin: Int
    workersMax: Int
    networkVolumeId: String
    gpuCount: Int
    allowedCudaVersions: String
    """
    Default executionTimeout of the endpoint's jobs, ms (0: the platform's default, 600 s).
    """
    executionTimeoutMs: Int
    """
    Only "QB" (queue-based) locally.
    """
    type: String
    """
    A template created for the endpoint (instead of templateId).
    """
    template: EndpointTemplateInput
    """
    Recorded only.
    """
    minCudaVersion: String
    workersPFBTarget: Int
    instanceIds: [String!]
    networkVolumeIds: [NetworkVolumeIdInput!]
    flashEnvironmentId: String
    computeType: String
    modelReferences: [String!]
  }

  input NetworkVolumeIdInput {
    networkVolumeId: String!
    dataCenterId: String
  }

  type EndpointNetworkVolume {
    networkVolumeId: String!
    dataCenterId: String
  }

  input UpdateEndpointTemplateInput {
    endpointId: String!
    templateId: String!
  }

  type Endpoint {
    id: String!
    name: String!
    gpuIds: String!
    templateId: String!
    idleTimeout: Int!
    locations: String
    flashBootType: FlashBootType!
    scalerType: String!
    scalerValue: Int!
    workersMin: Int!
    workersMax: Int!
    """
    Kept warm: the same as workersMin locally.
    """
    workersStandby: Int!
    networkVolumeId: String
    networkVolume: NetworkVolume
    gpuCount: Int!
    allowedCudaVersions: String
    """
    Release number; a worker reports it as slsVersion.
    """
    version: Int!
    userId: String!
    createdAt: String
    """
    QB: queue-based (the only kind here).
    """
    type: String!
    aiKey: String
    env: [EnvironmentVariable!]!
    template: PodTemplate
    """
    The endpoint's worker pods that have not exited.
    """
    pods: [Pod!]!
    executionTimeoutMs: Int!
    minCudaVersion: String
    workersPFBTarget: Int
    instanceIds: [String!]!
    networkVolumeIds: [EndpointNetworkVolume!]!
    flashEnvironmentId: String
    computeType: String!
    modelReferences: [String!]!
    """
    No Flash builds or IDE pods exist locally: always null.
    """
    activeBuildid: String
    idePodId: String
  }

  type EnvironmentVariable {
    key: String!
    value: String!
  }
`;
