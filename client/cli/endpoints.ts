/** `sluice endpoints list|create|update|delete`: serverless endpoints over the service's GraphQL API. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { ENDPOINTS_GROUP } from './groups';
import { type EndpointInput, type EndpointView } from '../../contracts';
import { UsageError } from './errors';
import { dataDirOption, jsonOption, withExit, type ExitState } from './options';
import { withService, type ServiceContext } from './service-clients';
import { printTable } from './tables';
import { resolveTemplate } from './templates';

interface EndpointOptions {
  dataDir: string;
  json?: boolean;
  name?: string;
  template?: string;
  gpu?: string;
  workersMin?: number;
  workersMax?: number;
  idleTimeout?: number;
}

const view = (e: EndpointView) => ({
  id: e.id,
  name: e.name,
  templateId: e.templateId,
  gpuIds: e.gpuIds,
  workersMin: e.workersMin,
  workersMax: e.workersMax,
  idleTimeout: e.idleTimeout,
  version: e.version,
  workers: e.pods?.length ?? 0,
});

function print(e: EndpointView, json?: boolean): void {
  if (json) console.log(JSON.stringify(view(e)));
  else
    console.log(
      `endpoint ${e.name} (${e.id})\n  template ${e.templateId}\n  gpu      ${e.gpuIds}\n  workers  ${e.workersMin}..${e.workersMax}\n  run      sluice run --endpoint ${e.name} --input '{}'`,
    );
}

const endpointId = async (s: ServiceContext, nameOrId: string): Promise<string> =>
  (await import('./endpoint-arg')).lookUpEndpoint(s.graphql, nameOrId);

async function list(o: EndpointOptions): Promise<number> {
  const { endpoints } = await withService(o.dataDir, (s) => s.graphql.listEndpoints());
  if (o.json) console.log(JSON.stringify(endpoints.map(view)));
  else
    printTable([
      ['ID', 'NAME', 'TEMPLATE', 'GPU', 'WORKERS'],
      ...endpoints.map((e) => [
        e.id,
        e.name,
        e.templateId,
        e.gpuIds,
        `${e.pods?.length ?? 0} (${e.workersMin}..${e.workersMax})`,
      ]),
    ]);
  return 0;
}

async function fields(s: ServiceContext, o: EndpointOptions): Promise<EndpointInput> {
  return {
    ...(o.name ? { name: o.name } : {}),
    ...(o.template ? { templateId: await resolveTemplate(s, o.template) } : {}),
    ...(o.gpu ? { gpuIds: o.gpu } : {}),
    ...(o.workersMin !== undefined ? { workersMin: o.workersMin } : {}),
    ...(o.workersMax !== undefined ? { workersMax: o.workersMax } : {}),
    ...(o.idleTimeout !== undefined ? { idleTimeout: o.idleTimeout } : {}),
  };
}

async function create(o: EndpointOptions): Promise<number> {
  if (!o.name) throw new UsageError('--name is required');
  if (!o.template) throw new UsageError('--template ID|NAME is required (create one with `sluice templates create`)');
  const e = await withService(o.dataDir, async (s) =>
    s.graphql.saveEndpoint({ gpuIds: 'AMPERE_16', ...(await fields(s, o)) }),
  );
  print(e, o.json);
  return 0;
}

async function update(endpoint: string, o: EndpointOptions): Promise<number> {
  if ([o.name, o.template, o.gpu, o.workersMin, o.workersMax, o.idleTimeout].every((v) => v === undefined)) {
    throw new UsageError(
      'nothing to change: give --name, --template, --gpu, --workers-min, --workers-max or --idle-timeout',
    );
  }
  const e = await withService(o.dataDir, async (s) =>
    s.graphql.saveEndpoint({ id: await endpointId(s, endpoint), ...(await fields(s, o)) }),
  );
  print(e, o.json);
  return 0;
}

/** Deletes an endpoint; the service refuses while it may have workers, so it is scaled to 0 first. */
async function remove(endpoint: string, o: EndpointOptions): Promise<number> {
  const id = await withService(o.dataDir, async (s) => {
    const id = await endpointId(s, endpoint);
    await s.graphql.saveEndpoint({ id, workersMin: 0, workersMax: 0 });
    await s.graphql.deleteEndpoint(id);
    return id;
  });
  console.log(o.json ? JSON.stringify({ id, deleted: true }) : `endpoint ${endpoint} (${id}) deleted`);
  return 0;
}

const count = (flags: string, description: string): Option =>
  new Option(flags, description).argParser((v) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isInteger(n) || n < 0)
      throw new InvalidArgumentError('must be a non-negative integer');
    return n;
  });

const settings = (cmd: Command): Command =>
  cmd
    .addOption(new Option('--template <template>', 'the template (id or name) whose command the workers run'))
    .addOption(new Option('--gpu <ids>', 'GPU tier, or a comma-separated priority list; default on create: AMPERE_16'))
    .addOption(count('--workers-min <n>', 'workers kept running'))
    .addOption(count('--workers-max <n>', 'most workers at once'))
    .addOption(count('--idle-timeout <s>', 'seconds an idle worker lives'))
    .addOption(jsonOption())
    .addOption(dataDirOption());

/** Registers `sluice endpoints list|create|update|delete`. */
export function registerEndpointCommands(program: Command, exit: ExitState): void {
  const cmd = program.command('endpoints').summary(ENDPOINTS_GROUP.summary);
  cmd
    .command('list')
    .summary('your endpoints and their workers')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText('after', '\nExample:\n  sluice endpoints list --json')
    .action(withExit(exit, list));
  settings(
    cmd
      .command('create')
      .summary('create an endpoint running a template')
      .addOption(new Option('--name <name>', "the endpoint's name")),
  )
    .addHelpText('after', '\nExample:\n  sluice endpoints create --name shout --template shout --workers-max 2')
    .action(withExit(exit, create));
  settings(
    cmd
      .command('update')
      .summary('change an endpoint (a new template or GPU is a rolling release)')
      .argument('<endpoint>', 'id or name')
      .addOption(new Option('--name <name>', 'a new name')),
  )
    .addHelpText('after', '\nExample:\n  sluice endpoints update shout --workers-min 1')
    .action(withExit(exit, update));
  cmd
    .command('delete')
    .summary('scale an endpoint to 0 workers and delete it')
    .argument('<endpoint>', 'id or name')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText('after', '\nExample:\n  sluice endpoints delete shout')
    .action(withExit(exit, remove));
}
