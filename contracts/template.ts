import { z } from 'zod';

const Port = z.string().regex(/^\d{1,5}\/(http|tcp)$/, { error: 'ports entries must look like "<port>/<http|tcp>"' });
const Env = z.record(z.string(), z.string({ error: 'env values must be strings' }));
export const TemplateCategory = z.enum(['NVIDIA', 'AMD', 'CPU']);
export type TemplateCategory = z.infer<typeof TemplateCategory>;

export const Template = z.object({
  id: z.string(),
  name: z.string(),
  imageName: z.string(),
  category: TemplateCategory,
  containerDiskInGb: z.number().int(),
  containerRegistryAuthId: z.string().nullable().optional(),
  dockerEntrypoint: z.array(z.string()),
  dockerStartCmd: z.array(z.string()),
  env: Env,
  isPublic: z.boolean(),
  isRunpod: z.boolean(),
  isServerless: z.boolean(),
  ports: z.array(z.string()),
  readme: z.string(),
  earned: z.number(),
  runtimeInMin: z.number().int(),
  volumeInGb: z.number().int(),
  volumeMountPath: z.string(),
});
export type Template = z.infer<typeof Template>;

/** Defaults the spec gives for the template update body (the create body uses them too). */
export const TEMPLATE_DEFAULTS = {
  containerDiskInGb: 50,
  isPublic: false,
  readme: '',
  volumeInGb: 20,
  volumeMountPath: '/workspace',
} as const;

/** Body of `POST /v1/templates/{id}/update`: all optional, spec defaults applied on update. */
export const TemplateUpdate = z.strictObject({
  containerDiskInGb: z
    .number({ error: 'containerDiskInGb must be a number' })
    .int({ error: 'containerDiskInGb must be an integer' })
    .min(0)
    .max(10_000)
    .optional(),
  containerRegistryAuthId: z.string({ error: 'containerRegistryAuthId must be a string' }).optional(),
  dockerEntrypoint: z
    .array(z.string({ error: 'dockerEntrypoint entries must be strings' }), {
      error: 'dockerEntrypoint must be an array of strings',
    })
    .optional(),
  dockerStartCmd: z
    .array(z.string({ error: 'dockerStartCmd entries must be strings' }), {
      error: 'dockerStartCmd must be an array of strings',
    })
    .optional(),
  env: Env.optional(),
  imageName: z
    .string({ error: 'imageName must be a string' })
    .min(1, { error: 'imageName must not be empty' })
    .optional(),
  isPublic: z.boolean({ error: 'isPublic must be a boolean' }).optional(),
  name: z
    .string({ error: 'name must be a string' })
    .min(1, { error: 'name must not be empty' })
    .max(191, { error: 'name must be at most 191 characters' })
    .optional(),
  ports: z.array(Port, { error: 'ports must be an array of "<port>/<http|tcp>" strings' }).optional(),
  readme: z.string({ error: 'readme must be a string' }).optional(),
  volumeInGb: z
    .number({ error: 'volumeInGb must be a number' })
    .int({ error: 'volumeInGb must be an integer' })
    .min(0)
    .max(100_000)
    .optional(),
  /** `""` (sent by the official tools) means the default, /workspace. */
  volumeMountPath: z
    .string({ error: 'volumeMountPath must be a string' })
    .refine((v) => v === '' || v.startsWith('/'), { error: 'volumeMountPath must be an absolute path' })
    .optional(),
});
export type TemplateUpdate = z.infer<typeof TemplateUpdate>;

/** Body of `POST /v1/templates` (create): `name` and `imageName` required. */
export const TemplateCreate = TemplateUpdate.extend({
  name: z
    .string({ error: 'name is required' })
    .min(1, { error: 'name must not be empty' })
    .max(191, { error: 'name must be at most 191 characters' }),
  imageName: z.string({ error: 'imageName is required' }).min(1, { error: 'imageName must not be empty' }),
  category: z
    .enum(TemplateCategory.options, { error: `category must be one of ${TemplateCategory.options.join(', ')}` })
    .optional(),
  isServerless: z.boolean({ error: 'isServerless must be a boolean' }).optional(),
});
export type TemplateCreate = z.infer<typeof TemplateCreate>;

/** `{key, value}` pairs: how the GraphQL API spells an environment. */
export const EnvironmentVariable = z.object({ key: z.string(), value: z.string() });
export type EnvironmentVariable = z.infer<typeof EnvironmentVariable>;

/**
 * Input of the GraphQL `saveTemplate` (the real API's shape: `dockerArgs` is one command string,
 * `ports` a comma-separated string, `env` a list of pairs). `dockerEntrypoint` and `dockerStartCmd`
 * are this platform's additions for commands whose arguments contain spaces.
 */
export interface SaveTemplateInput {
  id?: string;
  name?: string;
  imageName?: string;
  category?: TemplateCategory;
  dockerArgs?: string;
  dockerEntrypoint?: string[];
  dockerStartCmd?: string[];
  containerDiskInGb?: number;
  volumeInGb?: number;
  volumeMountPath?: string;
  ports?: string;
  env?: EnvironmentVariable[];
  isServerless?: boolean;
  isPublic?: boolean;
  readme?: string;
  containerRegistryAuthId?: string;
  startSsh?: boolean;
  startJupyter?: boolean;
  advancedStart?: boolean;
  startScript?: string;
  portsConfig?: PortConfig[];
  config?: unknown;
}

/** A label of a template port in the web console (`portsConfig`). */
export interface PortConfig {
  port: string;
  name: string;
}

/**
 * Settings of the GraphQL `PodTemplate` that only pods started from the web console use (SSH,
 * Jupyter, a start script, port labels). Recorded and returned; they change nothing locally.
 */
export interface TemplateExtras {
  advancedStart: boolean;
  startJupyter: boolean;
  startSsh: boolean;
  startScript: string;
  portsConfig: PortConfig[];
  config: unknown;
}

export const TEMPLATE_EXTRAS_DEFAULTS: TemplateExtras = {
  advancedStart: false,
  startJupyter: false,
  startSsh: false,
  startScript: '',
  portsConfig: [],
  config: null,
};

/** A template as the GraphQL API returns it (`PodTemplate`). */
export const PodTemplate = z.looseObject({
  id: z.string(),
  name: z.string(),
  imageName: z.string(),
  category: TemplateCategory,
  dockerArgs: z.string(),
  dockerEntrypoint: z.array(z.string()),
  dockerStartCmd: z.array(z.string()),
  containerDiskInGb: z.number().int(),
  volumeInGb: z.number().int(),
  volumeMountPath: z.string(),
  ports: z.string(),
  env: z.array(EnvironmentVariable),
  isServerless: z.boolean(),
  isPublic: z.boolean(),
  isRunpod: z.boolean(),
  readme: z.string(),
  containerRegistryAuthId: z.string().nullable(),
  earned: z.number(),
  runtimeInMin: z.number().int(),
  advancedStart: z.boolean().optional(),
  startJupyter: z.boolean().optional(),
  startSsh: z.boolean().optional(),
  startScript: z.string().optional(),
});
export type PodTemplate = z.infer<typeof PodTemplate>;
