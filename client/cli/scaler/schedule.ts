/** `sluice scale schedule add|list|pause|resume|delete`: scheduled scale up/down of an endpoint, as Temporal Schedules (registered by scale.ts). */
import { type Command, Option } from 'commander';
import { ScalerScheduleError } from '../../scaler-schedules';
import { connectCli, type CliContext } from '../context';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';
import { dataDirOption, withExit, type ExitState } from '../options';
import { endpointArg } from '../endpoint-arg';
import { parseDuration, parseIsoTime, parseWorkers } from './parse';
import { schedulesTable, whenText } from './output';

const EXIT_HELP =
  'Exit code: 0 done; 1 the command failed; 2 usage (bad schedule: min above max, bad time, cron or time zone; unknown endpoint; no such schedule; one of that name exists).';

interface Flags {
  json?: boolean;
  dataDir: string;
  all?: boolean;
}
interface AddFlags extends Flags {
  at?: string;
  cron?: string;
  tz?: string;
  days?: string;
  min?: number;
  max?: number;
  until?: number;
  for?: number;
  name?: string;
  paused?: boolean;
}

/** Connects, runs `fn`, maps the schedules' errors to usage errors (exit 2), closes on every path. */
async function withSchedules(o: Flags, fn: (cli: CliContext) => Promise<number>): Promise<number> {
  const cli = await connectCli(o.dataDir);
  try {
    return await fn(cli);
  } catch (err) {
    if (err instanceof ScalerScheduleError) throw new UsageError(err.message);
    throw err;
  } finally {
    await cli.close();
  }
}

/** The endpoint's id; one that no longer exists is still found by its schedules. */
const endpointOf = (cli: CliContext, endpoint: string) =>
  endpointArg(cli, endpoint, async (id) => (await cli.scaler.schedules.list({ endpointId: id })).length > 0);

async function add(endpoint: string, o: AddFlags): Promise<number> {
  if (o.at === undefined && o.cron === undefined)
    throw new UsageError('give --at HH:MM (with --tz, --days) or --cron EXPR');
  if (o.min === undefined || o.max === undefined)
    throw new UsageError(
      'give --min N and --max N: the floor and ceiling (workersMin and workersMax when no scaler runs)',
    );
  return withSchedules(o, async (cli) => {
    const endpointId = await endpointArg(cli, endpoint);
    const v = await cli.scaler.schedules.add({
      endpointId,
      min: o.min!,
      max: o.max!,
      ...(o.name ? { name: o.name } : {}),
      ...(o.at !== undefined ? { at: o.at } : {}),
      ...(o.cron !== undefined ? { cron: o.cron } : {}),
      ...(o.days !== undefined ? { days: o.days } : {}),
      ...(o.tz !== undefined ? { timezone: o.tz } : {}),
      ...(o.until !== undefined ? { until: o.until } : {}),
      ...(o.for !== undefined ? { forMs: o.for } : {}),
      ...(o.paused ? { paused: true } : {}),
    });
    if (o.json) console.log(JSON.stringify(v));
    else
      console.log(
        `added ${v.scheduleId}: ${whenText(v)} (${v.timezone}) sets ${v.min}..${v.max}${v.paused ? ' (paused)' : ''}; next ${v.next.slice(0, 2).join(', ') || '-'}`,
      );
    return EXIT_CODES.ok;
  });
}

async function list(endpoint: string | undefined, o: Flags): Promise<number> {
  return withSchedules(o, async (cli) => {
    const endpointId = endpoint === undefined ? undefined : await endpointOf(cli, endpoint);
    const views = await cli.scaler.schedules.list(endpointId === undefined ? {} : { endpointId });
    if (o.json) console.log(JSON.stringify(views));
    else console.log(views.length === 0 ? 'no scale schedules' : schedulesTable(views).join('\n'));
    return EXIT_CODES.ok;
  });
}

interface VerbSpec {
  apply: (cli: CliContext, endpointId: string, name: string) => Promise<unknown>;
  done: string;
  summary: string;
  json: string;
}
/** The commands that change schedules (pause, resume, delete): what each does to one, its past tense, its summary, its --json. */
const VERBS = {
  pause: {
    apply: (cli, e, n) => cli.scaler.schedules.pause(e, n),
    done: 'paused',
    summary: 'stop a schedule from firing (the bounds stay as they are)',
    json: 'a JSON array of the schedules after the change',
  },
  resume: {
    apply: (cli, e, n) => cli.scaler.schedules.resume(e, n),
    done: 'resumed',
    summary: 'let a paused schedule fire again',
    json: 'a JSON array of the schedules after the change',
  },
  delete: {
    apply: async (cli, e, n) => {
      await cli.scaler.schedules.delete(e, n);
      return { endpointId: e, name: n, deleted: true };
    },
    done: 'deleted',
    summary: 'delete a schedule (the bounds it set stay)',
    json: 'a JSON array of what was deleted',
  },
} satisfies Record<string, VerbSpec>;
type Verb = keyof typeof VERBS;

const change =
  (what: Verb) =>
  async (endpoint: string, name: string | undefined, o: Flags): Promise<number> => {
    if (name !== undefined && o.all) throw new UsageError('give a schedule NAME or --all, not both');
    if (name === undefined && !o.all)
      throw new UsageError(
        "give the schedule's NAME (sluice scale schedule list shows them), or --all for every schedule of the endpoint",
      );
    return withSchedules(o, async (cli) => {
      const endpointId = await endpointOf(cli, endpoint);
      const done: unknown[] = [];
      // NAME, or with --all every schedule of the endpoint.
      const names = name !== undefined ? [name] : (await cli.scaler.schedules.list({ endpointId })).map((v) => v.name);
      for (const n of names) {
        done.push(await VERBS[what].apply(cli, endpointId, n));
        if (!o.json) console.log(`${VERBS[what].done} schedule ${n} of endpoint ${endpointId}`);
      }
      if (o.json) console.log(JSON.stringify(done));
      else if (done.length === 0) console.log(`endpoint ${endpointId} has no scale schedules`);
      return EXIT_CODES.ok;
    });
  };

/** Registers `sluice scale schedule ...` under `scale`. */
export function registerScheduleCommands(scale: Command, exit: ExitState): void {
  const schedule = scale
    .command('schedule')
    .summary('scheduled scale up/down (Temporal Schedules): add, list, pause, resume, delete')
    .description(
      "A schedule fires at a time of day (--at, in --tz, on --days) or on a cron expression and sets the endpoint's floor and ceiling: the window of its running scaler, or workersMin/workersMax directly when no scaler runs. Temporal runs the schedule (time zones and daylight-saving changes included); the daemon applies each firing.",
    )
    .addHelpText(
      'after',
      `
Examples:
  sluice scale schedule add my-model --at 08:00 --tz Europe/Berlin --days mon-fri --min 2 --max 10
  sluice scale schedule add my-model --at 20:00 --tz Europe/Berlin --min 0 --max 2
  sluice scale schedule list my-model

${EXIT_HELP}`,
    );

  schedule
    .command('add')
    .summary('add a schedule that sets the floor and ceiling (or the bounds) when it fires')
    .argument('<endpoint>', 'endpoint id or name')
    .option('--at <HH:MM>', 'fire every day (or every one of --days) at this time of day, 24-hour clock')
    .option(
      '--days <days>',
      'with --at: only on these weekdays: mon-fri, sat,sun, mon,wed,fri, fri-mon (default: every day)',
    )
    .option(
      '--cron <expr>',
      'fire on a cron expression instead of --at: "0 8 * * mon-fri", "@daily", "@every 30m" (checked by Temporal)',
    )
    .option(
      '--tz <zone>',
      'IANA time zone of --at and --cron (Europe/Berlin); daylight saving follows it (default: UTC)',
    )
    .addOption(new Option('--min <n>', 'the floor (workersMin when no scaler runs)').argParser(parseWorkers))
    .addOption(new Option('--max <n>', 'the ceiling (workersMax when no scaler runs)').argParser(parseWorkers))
    .addOption(new Option('--until <iso>', 'fire no more after this ISO 8601 time').argParser(parseIsoTime))
    .addOption(
      new Option(
        '--for <duration>',
        'with a running scaler: the window ends this long after each firing (default: until replaced)',
      ).argParser(parseDuration),
    )
    .option(
      '--name <name>',
      "the schedule's name within the endpoint (default: from --at/--days, e.g. 0800-mon-fri, or cron-<hash>)",
    )
    .option('--paused', 'create it paused')
    .addOption(new Option('--json', 'the schedule as JSON'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice scale schedule add my-model --at 08:00 --tz Europe/Berlin --days mon-fri --min 2 --max 10
  sluice scale schedule add my-model --cron "30 17 * * fri" --tz America/New_York --min 0 --max 1 --until 2026-12-31T00:00:00Z
  sluice scale schedule add my-model --at 12:00 --min 4 --max 8 --for 2h --name lunch

${EXIT_HELP}`,
    )
    .action(withExit(exit, add));

  schedule
    .command('list')
    .summary('the scale schedules (of one endpoint, or all): when, bounds, paused, next and last firing')
    .argument('[endpoint]', 'endpoint id or name (default: all)')
    .addOption(new Option('--json', 'a JSON array of schedules'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nExamples:\n  sluice scale schedule list\n  sluice scale schedule list my-model --json\n\n${EXIT_HELP}`,
    )
    .action(withExit(exit, list));

  for (const what of Object.keys(VERBS) as Verb[]) {
    schedule
      .command(what)
      .summary(VERBS[what].summary)
      .argument('<endpoint>', 'endpoint id or name')
      .argument('[name]', "the schedule's name (see list)")
      .option('--all', 'every schedule of the endpoint')
      .addOption(new Option('--json', VERBS[what].json))
      .addOption(dataDirOption())
      .addHelpText(
        'after',
        `\nExamples:\n  sluice scale schedule ${what} my-model 0800-mon-fri\n  sluice scale schedule ${what} my-model --all\n\n${EXIT_HELP}`,
      )
      .action(withExit(exit, change(what)));
  }
}
