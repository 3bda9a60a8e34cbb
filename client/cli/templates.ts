/** `sluice templates list|create|update`: the worker command lines endpoints run, over the service's REST and GraphQL APIs. */
import { type Command, Option } from 'commander';
import { TEMPLATES_GROUP } from './groups';
import { type PodTemplate, type SaveTemplateInput } from '../../contracts';
import { UsageError } from './errors';
import { collectEnv, dataDirOption, jsonOption, withExit, type ExitState } from './options';
import { withService, type ServiceContext } from './service-clients';
import { printTable } from './tables';

interface TemplateOptions {
  dataDir: string;
  json?: boolean;
  name?: string;
  image?: string;
  command?: string;
  env?: { key: string; value: string }[];
  containerDisk?: number;
}

/** A template given by id or name (the caller's own), to its id. */
export async function resolveTemplate(s: ServiceContext, nameOrId: string): Promise<string> {
  const own = await s.rest.listTemplates();
  const found = own.find((t) => t.id === nameOrId) ?? own.find((t) => t.name === nameOrId);
  if (found) return found.id;
  const shared = await s.graphql.getTemplate(nameOrId);
  if (shared) return shared.id;
  throw new UsageError(
    `template ${nameOrId} not found; your templates: ${own.map((t) => `${t.name} (${t.id})`).join(', ') || 'none'}`,
  );
}

const view = (t: PodTemplate) => ({
  id: t.id,
  name: t.name,
  imageName: t.imageName,
  dockerArgs: t.dockerArgs,
  env: t.env,
  isServerless: t.isServerless,
});

function print(t: PodTemplate, json?: boolean): void {
  if (json) console.log(JSON.stringify(view(t)));
  else console.log(`template ${t.name} (${t.id})\n  image    ${t.imageName}\n  command  ${t.dockerArgs ?? ''}`);
}

async function list(o: TemplateOptions): Promise<number> {
  const templates = await withService(o.dataDir, (s) => s.rest.listTemplates());
  if (o.json)
    console.log(
      JSON.stringify(
        templates.map((t) => ({
          id: t.id,
          name: t.name,
          imageName: t.imageName,
          dockerStartCmd: t.dockerStartCmd,
          isServerless: t.isServerless,
        })),
      ),
    );
  else
    printTable([
      ['ID', 'NAME', 'IMAGE', 'COMMAND'],
      ...templates.map((t) => [t.id, t.name, t.imageName, [...t.dockerEntrypoint, ...t.dockerStartCmd].join(' ')]),
    ]);
  return 0;
}

function input(o: TemplateOptions): SaveTemplateInput {
  return {
    ...(o.name ? { name: o.name } : {}),
    ...(o.image ? { imageName: o.image } : {}),
    ...(o.command !== undefined ? { dockerArgs: o.command } : {}),
    ...(o.env ? { env: o.env } : {}),
    ...(o.containerDisk !== undefined ? { containerDiskInGb: o.containerDisk } : {}),
  };
}

async function create(o: TemplateOptions): Promise<number> {
  if (!o.name) throw new UsageError('--name is required');
  if (!o.command)
    throw new UsageError('--command is required: the worker\'s command line, e.g. --command "python -u handler.py"');
  const t = await withService(o.dataDir, (s) =>
    s.graphql.saveTemplate({ imageName: `local/${o.name}:latest`, isServerless: true, ...input(o) }),
  );
  print(t, o.json);
  return 0;
}

async function update(template: string, o: TemplateOptions): Promise<number> {
  const changes = input(o);
  if (Object.keys(changes).length === 0)
    throw new UsageError('nothing to change: give --name, --image, --command, --env or --container-disk');
  const t = await withService(o.dataDir, async (s) =>
    s.graphql.saveTemplate({ id: await resolveTemplate(s, template), ...changes }),
  );
  print(t, o.json);
  return 0;
}

const fields = (cmd: Command): Command =>
  cmd
    .addOption(
      new Option(
        '--image <name>',
        'the container image (recorded by the local platform, pulled by the service); default on create: local/<name>:latest',
      ),
    )
    .addOption(
      new Option('--command <line>', "the worker's command line, split like a POSIX shell (quotes, backslashes)"),
    )
    .addOption(
      new Option('--env <KEY=VALUE>', 'an environment variable of the worker (repeat the option for more)').argParser(
        collectEnv,
      ),
    )
    .addOption(new Option('--container-disk <gb>', 'container disk, GB').argParser(Number))
    .addOption(jsonOption())
    .addOption(dataDirOption());

/** Registers `sluice templates list|create|update`. */
export function registerTemplateCommands(program: Command, exit: ExitState): void {
  const cmd = program.command('templates').summary(TEMPLATES_GROUP.summary);
  cmd
    .command('list')
    .summary('your templates')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText('after', '\nExample:\n  sluice templates list --json')
    .action(withExit(exit, list));
  fields(
    cmd
      .command('create')
      .summary('create a serverless template')
      .addOption(new Option('--name <name>', "the template's name (unique)")),
  )
    .addHelpText(
      'after',
      '\nExample:\n  sluice templates create --name shout --command "python -u /srv/shout.py" --env GREETING=hi',
    )
    .action(withExit(exit, create));
  fields(
    cmd
      .command('update')
      .summary('change a template: a rolling release of its endpoints')
      .argument('<template>', 'id or name')
      .addOption(new Option('--name <name>', 'a new name')),
  )
    .addHelpText('after', '\nExample:\n  sluice templates update shout --command "python -u /srv/shout_v2.py"')
    .action(withExit(exit, update));
}
