import { z } from 'zod';

const Port = z.string().regex(/^\d{1,5}\/(http|tcp)$/, { error: 'ports entries must look like "<port>/<http|tcp>"' });
const Env = z.record(z.string(), z.string({ error: 'env values must be strings' }));

export const Template = z.object({
  id: z.string(),
  name: z.string(),
  imageName: z.string(),
  category: z.enum(['NVIDIA', 'AMD', 'CPU']),
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

/** Body of `POST /v1/templates/{id}/update`: all optional, spec defaults applied on update. */
export const TemplateUpdate = z.strictObject({
  containerDiskInGb: z.number().int().min(0).max(10_000).optional(),
  containerRegistryAuthId: z.string().optional(),
  dockerEntrypoint: z.array(z.string()).optional(),
  dockerStartCmd: z.array(z.string()).optional(),
  env: Env.optional(),
  imageName: z.string().min(1).optional(),
  isPublic: z.boolean().optional(),
  name: z.string().min(1).max(191).optional(),
  ports: z.array(Port).optional(),
  readme: z.string().optional(),
  volumeInGb: z.number().int().min(0).max(100_000).optional(),
  volumeMountPath: z.string().startsWith('/').optional(),
});
export type TemplateUpdate = z.infer<typeof TemplateUpdate>;

/** Body of `POST /v1/templates` (create). */
export const TemplateCreate = TemplateUpdate.extend({
  name: z.string().min(1).max(191),
  imageName: z.string().min(1),
  category: z.enum(['NVIDIA', 'AMD', 'CPU']).optional(),
  isServerless: z.boolean().optional(),
});
export type TemplateCreate = z.infer<typeof TemplateCreate>;
