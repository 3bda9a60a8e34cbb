/** GraphQL SDL of templates: PodTemplate, its inputs (saveTemplate, inline endpoint templates) and the podTemplates filter. */
/** Fields a template input has wherever a template is saved (saveTemplate, saveEndpoint's inline template). */
const TEMPLATE_INPUT_FIELDS = /* GraphQL */ `name: String
  imageName: String
  category: String
  """The start command as one string (split like a shell would)."""
  dockerArgs: String
  dockerEntrypoint: [String!]
  dockerStartCmd: [String!]
  containerDiskInGb: Int
  volumeInGb: Int
  """"" means the default, /workspace (the official tools send "")."""
  volumeMountPath: String
  """Comma-separated "<port>/<http|tcp>"."""
  ports: String
  env: [EnvironmentVariableInput!]
  readme: String
  containerRegistryAuthId: String
  startSsh: Boolean
  startJupyter: Boolean
  advancedStart: Boolean
  startScript: String
  portsConfig: [PortConfigInput!]
  config: JSON`;

/**
 * Template types of the control-plane schema under the service's names. `dockerArgs` is the
 * command as one string, `ports` a comma-separated string, `env` a list of pairs; the console's
 * settings (`advancedStart`, `startJupyter`, `startScript`, `startSsh`, `portsConfig`, `config`)
 * are recorded and returned but change nothing locally.
 */
export const TEMPLATE_SDL = /* GraphQL */ `
input EnvironmentVariableInput {
  key: String!
  value: String!
}

input PortConfigInput {
  port: String!
  name: String!
}

type PortConfig {
  port: String!
  name: String!
}

input SaveTemplateInput {
  id: String
  ${TEMPLATE_INPUT_FIELDS}
  isServerless: Boolean
  isPublic: Boolean
}

"""The template saveEndpoint creates for the endpoint (Flash and runpodctl send one inline). Always serverless."""
input EndpointTemplateInput {
  ${TEMPLATE_INPUT_FIELDS}
}

"""Filter of podTemplates (runpodctl template list sends isRunpod true for official, false for community templates)."""
input PodTemplateInput {
  isRunpod: Boolean
  isServerless: Boolean
  category: String
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
  advancedStart: Boolean!
  startJupyter: Boolean!
  startScript: String!
  startSsh: Boolean!
  portsConfig: [PortConfig!]!
  config: JSON
}
`;
