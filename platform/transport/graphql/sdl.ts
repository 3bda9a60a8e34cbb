/** GraphQL SDL of the control plane: queries, mutations, endpoints and templates. */
/**
 * The control-plane GraphQL schema: the service's endpoint and template operations with the
 * field names its docs and official Python client use. The Pod and hardware types are in
 * sdl-pod.ts.
 */
export const SDL = /* GraphQL */ `
"""A mutation with no result: always null."""
scalar Void

enum FlashBootType { OFF FLASHBOOT }
enum PodDesiredStatus { RUNNING EXITED TERMINATED }

type Query {
  """The caller: their endpoints, templates and serverless discount."""
  myself: User!
  """One template the caller may read (their own or a public one); null when unknown."""
  podTemplate(id: String!): PodTemplate
}

type Mutation {
  """Creates an endpoint (no id) or modifies one (with id)."""
  saveEndpoint(input: EndpointInput!): Endpoint
  """Deletes an endpoint whose workersMin and workersMax are both 0. Returns null."""
  deleteEndpoint(id: String!): Void
  """Points an endpoint at another template (a rolling release)."""
  updateEndpointTemplate(input: UpdateEndpointTemplateInput!): Endpoint
  """Creates a template (no id) or modifies one (with id; a rolling release of its endpoints)."""
  saveTemplate(input: SaveTemplateInput!): PodTemplate
}

type User {
  id: String!
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
  """Kept warm: the same as workersMin locally."""
  workersStandby: Int!
  networkVolumeId: String
  networkVolume: NetworkVolume
  gpuCount: Int!
  allowedCudaVersions: String
  """Release number; a worker reports it as slsVersion."""
  version: Int!
  userId: String!
  createdAt: String
  """QB: queue-based (the only kind here)."""
  type: String!
  aiKey: String
  env: [EnvironmentVariable!]!
  template: PodTemplate
  """The endpoint's worker pods that have not exited."""
  pods: [Pod!]!
}

type EnvironmentVariable {
  key: String!
  value: String!
}

input EnvironmentVariableInput {
  key: String!
  value: String!
}

input SaveTemplateInput {
  id: String
  name: String
  imageName: String
  category: String
  """The start command as one string (split like a shell would)."""
  dockerArgs: String
  dockerEntrypoint: [String!]
  dockerStartCmd: [String!]
  containerDiskInGb: Int
  volumeInGb: Int
  volumeMountPath: String
  """Comma-separated "<port>/<http|tcp>"."""
  ports: String
  env: [EnvironmentVariableInput!]
  isServerless: Boolean
  isPublic: Boolean
  readme: String
  containerRegistryAuthId: String
  startSsh: Boolean
  startJupyter: Boolean
}

type PodTemplate {
  id: String!
  name: String!
  imageName: String!
  category: String!
  dockerArgs: String!
  dockerEntrypoint: [String!]!
  dockerStartCmd: [String!]!
  containerDiskInGb: Int!
  volumeInGb: Int!
  volumeMountPath: String!
  ports: String!
  env: [EnvironmentVariable!]!
  isServerless: Boolean!
  isPublic: Boolean!
  isRunpod: Boolean!
  readme: String!
  containerRegistryAuthId: String
  earned: Float!
  runtimeInMin: Int!
}
`;
