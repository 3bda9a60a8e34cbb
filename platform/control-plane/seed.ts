/** The example templates and endpoints (echo, stream, fail, sleep, flaky, mixed) every fresh platform has. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Endpoint } from '../../contracts';
import { type PodUser } from '../pods/pod-process';
import { unreadableBy } from '../pods/pod-user';
import { type Registry } from './registry';
import { type User } from './users';

/** Names of the example endpoints every fresh platform has. */
export const EXAMPLE_ENDPOINTS = ['echo', 'stream', 'fail', 'sleep', 'flaky', 'mixed'] as const;
export type ExampleName = (typeof EXAMPLE_ENDPOINTS)[number];

const projectRoot = join(__dirname, '..', '..');

/**
 * The command of an example worker: the compiled handler run by Node (the installed package), or
 * in a checkout the TypeScript handler run through tsx's loader. SLUICE_EXAMPLES_FROM_DIST=1 makes a
 * checkout run the compiled handler of its `dist/` instead: the tests' stack tier sets it (it rebuilds
 * `dist/` first), as a pod then starts on a third of the CPU (README.md, "Test it").
 */
export function exampleCommand(name: string): string[] {
  const source = join(projectRoot, 'examples', 'handlers', `${name}.ts`);
  const built = join(projectRoot, 'dist', 'examples', 'handlers', `${name}.js`);
  if (existsSync(source) && process.env.SLUICE_EXAMPLES_FROM_DIST === '1' && existsSync(built))
    return [process.execPath, built];
  if (!existsSync(source)) return [process.execPath, join(projectRoot, 'examples', 'handlers', `${name}.js`)];
  const tsx = dirname(require.resolve('tsx/package.json'));
  return [process.execPath, '--import', pathToFileURL(join(tsx, 'dist', 'loader.mjs')).href, source];
}

/**
 * Why pods running as `user` cannot run the example handlers (a folder on the way to them that
 * user cannot enter, as when a root platform's checkout is under /root or a 0700 folder), and what
 * to do; undefined when they can, or when pods run as the platform's own user. `files`: the
 * handlers and loader the example commands name.
 */
export function examplesUnreadable(
  user: PodUser | undefined,
  files = EXAMPLE_ENDPOINTS.flatMap((n) => exampleCommand(n).slice(1)).filter((a) => a.startsWith('/')),
): string | undefined {
  if (!user) return undefined;
  const where = files.map((f) => unreadableBy(user, f)).find((w) => w !== undefined);
  if (!where) return undefined;
  return (
    `worker pods run as uid ${user.uid} (gid ${user.gid}), which cannot read ${where}: every example endpoint's ` +
    `jobs would stay IN_QUEUE. Run from a checkout that user can read (a 0755 path outside /root), ` +
    `or set SLUICE_POD_UID (and SLUICE_POD_GID) to a user that can read it (docs/platform.md "Threat model").`
  );
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
