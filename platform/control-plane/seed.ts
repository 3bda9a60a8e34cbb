/** The example templates and endpoints (echo, stream, fail, sleep, flaky, mixed) every fresh platform has. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Endpoint } from '../../contracts';
import { type Registry } from './registry';
import { type User } from './users';

/** Names of the example endpoints every fresh platform has. */
export const EXAMPLE_ENDPOINTS = ['echo', 'stream', 'fail', 'sleep', 'flaky', 'mixed'] as const;
export type ExampleName = (typeof EXAMPLE_ENDPOINTS)[number];

const projectRoot = join(__dirname, '..', '..');

/**
 * The command of an example worker: the compiled handler run by Node (the installed package), or
 * in a checkout the TypeScript handler run through tsx's loader.
 */
export function exampleCommand(name: string): string[] {
  const source = join(projectRoot, 'examples', 'handlers', `${name}.ts`);
  if (!existsSync(source)) return [process.execPath, join(projectRoot, 'examples', 'handlers', `${name}.js`)];
  const tsx = dirname(require.resolve('tsx/package.json'));
  return [process.execPath, '--import', pathToFileURL(join(tsx, 'dist', 'loader.mjs')).href, source];
}

/**
 * Creates (or refreshes) the example templates and endpoints for `user`. Template commands
 * are rewritten on every start so a moved checkout keeps working; endpoint settings a user
 * changed are left alone.
 */
export function seedExamples(registry: Registry, user: User): Record<ExampleName, Endpoint> {
  const out = {} as Record<ExampleName, Endpoint>;
  for (const name of EXAMPLE_ENDPOINTS) {
    const existing = registry.templateByName(`sluice-example-${name}`);
    const template = registry.saveTemplate({
      ...(existing ? { id: existing.id } : {}),
      userId: user.id,
      name: `sluice-example-${name}`,
      imageName: `sluice/example-${name}:local`,
      category: 'CPU',
      containerDiskInGb: 5,
      containerRegistryAuthId: null,
      dockerEntrypoint: [],
      dockerStartCmd: exampleCommand(name),
      env: {},
      isPublic: false,
      isRunpod: true,
      isServerless: true,
      ports: [],
      readme: `Example worker \`${name}\` (examples/handlers/${name}.ts).`,
      volumeInGb: 0,
      volumeMountPath: '/workspace',
    });
    const endpoint =
      registry.endpointsOf(user.id).find((e) => e.name === name) ??
      registry.saveEndpoint({
        userId: user.id,
        name,
        gpuIds: 'AMPERE_16',
        templateId: template.id,
        idleTimeout: 30,
        locations: '',
        flashBootType: 'FLASHBOOT',
        scalerType: 'REQUEST_COUNT',
        scalerValue: 1,
        workersMin: 0,
        workersMax: 3,
        networkVolumeId: null,
      });
    out[name] = endpoint;
  }
  return out;
}
