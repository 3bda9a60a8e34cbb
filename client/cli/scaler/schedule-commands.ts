/** The `sluice scaler schedule` group — add, list, pause, resume, delete — registered under the scaler group by commands.ts, one step per subcommand. */
import { type Command, Option } from 'commander';
import { dataDirOption, withExit, type ExitState } from '../options';
import { ENDPOINT_ARGUMENT, parseDuration, parseIsoTime, parseWorkers } from './parse';
import { EXIT_HELP, VERBS, add, change, list, type Verb } from './schedule';

/** `sluice scaler schedule add ENDPOINT`. */
function addCommand(schedule: Command, exit: ExitState): void {
  schedule
    .command('add')
    .summary('add a schedule that sets the floor and ceiling (or the bounds) when it fires')
    .argument(...ENDPOINT_ARGUMENT)
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
  sluice scaler schedule add my-model --at 08:00 --tz Europe/Berlin --days mon-fri --min 2 --max 10
  sluice scaler schedule add my-model --cron "30 17 * * fri" --tz America/New_York --min 0 --max 1 --until 2026-12-31T00:00:00Z
  sluice scaler schedule add my-model --at 12:00 --min 4 --max 8 --for 2h --name lunch

${EXIT_HELP}`,
    )
    .action(withExit(exit, add));
}

/** `sluice scaler schedule list [ENDPOINT]`. */
function listCommand(schedule: Command, exit: ExitState): void {
  schedule
    .command('list')
    .summary('the scaler schedules (of one endpoint, or all): when, bounds, paused, next and last firing')
    .argument('[endpoint]', 'endpoint id or name (default: all)')
    .addOption(new Option('--json', 'a JSON array of schedules'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nExamples:\n  sluice scaler schedule list\n  sluice scaler schedule list my-model --json\n\n${EXIT_HELP}`,
    )
    .action(withExit(exit, list));
}

/** `sluice scaler schedule pause|resume|delete ENDPOINT [NAME]`. */
function changeCommands(schedule: Command, exit: ExitState): void {
  for (const what of Object.keys(VERBS) as Verb[]) {
    schedule
      .command(what)
      .summary(VERBS[what].summary)
      .argument(...ENDPOINT_ARGUMENT)
      .argument('[name]', "the schedule's name (see list)")
      .option('--all', 'every schedule of the endpoint')
      .addOption(new Option('--json', VERBS[what].json))
      .addOption(dataDirOption())
      .addHelpText(
        'after',
        `\nExamples:\n  sluice scaler schedule ${what} my-model 0800-mon-fri\n  sluice scaler schedule ${what} my-model --all\n\n${EXIT_HELP}`,
      )
      .action(withExit(exit, change(what)));
  }
}

/** Registers `sluice scaler schedule ...` under the scaler group. */
export function registerScheduleCommands(scaler: Command, exit: ExitState): void {
  const schedule = scaler
    .command('schedule')
    .summary('scheduled scale up/down (Temporal Schedules): add, list, pause, resume, delete')
    .description(
      "A schedule fires at a time of day (--at, in --tz, on --days) or on a cron expression and sets the endpoint's floor and ceiling: the window of its running scaler, or workersMin/workersMax directly when no scaler runs. Temporal runs the schedule (time zones and daylight-saving changes included); the daemon applies each firing.",
    )
    .addHelpText(
      'after',
      `
Examples:
  sluice scaler schedule add my-model --at 08:00 --tz Europe/Berlin --days mon-fri --min 2 --max 10
  sluice scaler schedule add my-model --at 20:00 --tz Europe/Berlin --min 0 --max 2
  sluice scaler schedule list my-model

${EXIT_HELP}`,
    );
  for (const register of [addCommand, listCommand, changeCommands]) register(schedule, exit);
}
