/** What the GraphQL client asks for: its operations' names, the fields it selects, the shapes of answers the contracts do not hold. */
import { z } from 'zod';

/** Names of the GraphQL operations, as used in error context. */
export type GraphqlOperation =
  | 'saveEndpoint'
  | 'listEndpoints'
  | 'deleteEndpoint'
  | 'updateEndpointTemplate'
  | 'saveTemplate'
  | 'listTemplates'
  | 'getTemplate'
  | 'deleteTemplate'
  | 'publicTemplates'
  | 'account'
  | 'gpuTypes'
  | 'dataCenters';

/** `myself` as runpodctl's `user` command selects it. */
export const Account = z.looseObject({
  id: z.string(),
  email: z.string().nullable(),
  clientBalance: z.number(),
  currentSpendPerHr: z.number(),
  spendLimit: z.number().nullable(),
  notifyPodsStale: z.boolean(),
  notifyPodsGeneral: z.boolean(),
  notifyLowBalance: z.boolean(),
});
export type Account = z.infer<typeof Account>;
export const GpuTypeView = z.looseObject({
  id: z.string(),
  displayName: z.string(),
  memoryInGb: z.number(),
  secureCloud: z.boolean(),
  communityCloud: z.boolean(),
});
export const DataCenterView = z.looseObject({
  id: z.string(),
  name: z.string(),
  location: z.string(),
  gpuAvailability: z.array(z.looseObject({ gpuTypeId: z.string(), displayName: z.string(), stockStatus: z.string() })),
});

/** The selections of a pod, an endpoint (with its pods) and a template. */
const POD = 'id desiredStatus slsVersion';
export const ENDPOINT = `id name gpuIds templateId idleTimeout locations flashBootType scalerType scalerValue workersMin workersMax networkVolumeId gpuCount version pods { ${POD} }`;
export const TEMPLATE =
  'id name imageName category dockerArgs dockerEntrypoint dockerStartCmd containerDiskInGb volumeInGb volumeMountPath ports env { key value } isServerless isPublic isRunpod readme containerRegistryAuthId earned runtimeInMin advancedStart startJupyter startScript startSsh';
