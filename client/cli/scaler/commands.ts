/** The scaling orchestration's command group — `sluice scale start|configure|status|watch|override|pause|resume|stop|schedule` — registered on the program by main. */
import { type Command, Option } from 'commander';
import { ScalerOptions } from '../../../contracts';
import { configure, control, override, start, status, stop, watch } from './actions';
import { SCALE_CONTROL_EXIT_HELP, SCALE_EXIT_HELP } from './output';
import { orNone, parseDuration, parseDuration0, parsePositive, parseUsd, parseWorkers } from './parse';
import { registerScheduleCommands } from './schedule';
import { dataDirOption, parsePositiveInt, withExit, type ExitState } from '../options';

const ENDPOINT_ARGUMENT = ['<endpoint>', 'endpoint id or name'] as const;
/** The library's defaults, shown in help. */
const D = ScalerOptions.parse({});
const s = (ms: number): string => `${ms / 1000}s`;
const decisionsOption = () =>
  new Option('--decisions <n>', 'decisions shown, newest last').argParser(parsePositiveInt).default(8);

/** The scaler's settings as options of `start`, or of `configure` (`clearable`: no defaults shown, `none` clears an optional one). */
function settingOptions(cmd: Command, clearable: boolean): Command {
  const dflt = (text: string): string => (clearable ? '' : ` (default: ${text})`);
  const optional = <T>(parse: (raw: string) => T) => (clearable ? orNone(parse) : parse);
  const none = clearable ? '; none clears it' : '';
  return cmd
    .addOption(new Option('--floor <n>', `workersMin never below${dflt(String(D.floor))}`).argParser(parseWorkers))
    .addOption(new Option('--ceiling <n>', `workersMax never above${dflt(String(D.ceiling))}`).argParser(parseWorkers))
    .addOption(
      new Option('--interval <duration>', `time between /health samples, e.g. 5s${dflt(s(D.intervalMs))}`).argParser(
        parseDuration,
      ),
    )
    .addOption(
      new Option(
        '--target-per-worker <n>',
        `jobs (queued + in progress) one worker should carry${dflt(String(D.targetPerWorker))}`,
      ).argParser(parsePositive),
    )
    .addOption(
      new Option(
        '--target-queue-delay <duration>',
        `instead: enough workers that the queue drains within this delay${none}`,
      ).argParser(optional(parseDuration)),
    )
    .addOption(
      new Option(
        '--max-spend-per-hour <usd>',
        `spend cap: workers x price per worker-hour stays at or under this${dflt('none')}${none}`,
      ).argParser(optional(parsePositive)),
    )
    .addOption(
      new Option(
        '--price-per-hour <usd>',
        `price of one worker-hour${dflt("the endpoint's workers' costPerHr")}${none}`,
      ).argParser(optional(parseUsd)),
    )
    .addOption(
      new Option('--headroom <n>', `workersMax above the target${dflt(String(D.headroom))}`).argParser(parseWorkers),
    )
    .addOption(
      new Option(
        '--window <duration>',
        `scale down to the highest recommendation of this window${dflt(s(D.stabilizationWindowMs))}`,
      ).argParser(parseDuration),
    )
    .addOption(
      new Option(
        '--cooldown <duration>',
        `no load for this long before 1 -> 0 workers${dflt(s(D.cooldownMs))}`,
      ).argParser(parseDuration),
    )
    .addOption(
      new Option(
        '--warm-hold <duration>',
        `warm workers (workersMin) follow the load of this last while, 0 none above the floor; workersMax keeps the window${dflt('workersMin = the target')}${none}`,
      ).argParser(optional(parseDuration0)),
    )
    .addOption(
      new Option(
        '--min-write-gap <duration>',
        `at most one bounds write per gap, except a raise${dflt(s(D.minWriteGapMs))}`,
      ).argParser(parseDuration),
    )
    .addOption(
      new Option(
        '--drift <policy>',
        `someone else changed the bounds: write ours again, or adopt theirs${dflt(D.drift)}`,
      ).choices(['reassert', 'adopt']),
    );
}

/** Registers `sluice scale` and its subcommands. */
export function registerScalerCommands(program: Command, exit: ExitState): void {
  const scale = program
    .command('scale')
    .summary("keep an endpoint's workersMin/workersMax right: a scaler per endpoint, overrides, schedules")
    .description(
      'A scaler is a long-running workflow per endpoint: it samples /health every interval, decides the bounds with its policy (target per worker, step limits, stabilization window, cooldown, spend cap, fallback) and writes workersMin/workersMax through saveEndpoint only when they change. Stopping it restores the bounds it found. See docs/scaler.md.',
    )
    .addHelpText(
      'after',
      `
Examples:
  sluice scale start my-model --floor 0 --ceiling 8 --max-spend-per-hour 5
  sluice scale configure my-model --ceiling 12
  sluice scale status my-model
  sluice scale override my-model --min 4 --max 8 --for 10m
  sluice scale schedule add my-model --at 08:00 --tz Europe/Berlin --days mon-fri --min 2 --max 10
  sluice scale stop my-model

${SCALE_EXIT_HELP}
130: interrupted while watching (the scaler keeps running).`,
    );

  settingOptions(
    scale
      .command('start')
      .summary("start the endpoint's scaler (one per endpoint)")
      .description(
        'Starts the scaler workflow of the endpoint (by id or name; an unknown one is refused before anything starts) and returns; it runs until `sluice scale stop`. A second scaler of the same endpoint is refused.',
      )
      .argument(...ENDPOINT_ARGUMENT),
    false,
  )
    .addOption(new Option('--json', 'JSON {workflowId, endpointId, config}'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice scale start my-model
  sluice scale start my-model --floor 1 --ceiling 20 --interval 2s --target-per-worker 4 --max-spend-per-hour 12.5

Exit code: 0 started; 1 the command failed; 2 usage (bad option, unknown endpoint, a scaler already runs).`,
    )
    .action(withExit(exit, start));

  settingOptions(
    scale
      .command('configure')
      .summary("change a running scaler's settings live (the others stay as they are)")
      .description(
        'Sends the scaler its configure update: the settings given replace the ones in force (`none` clears an optional one: --target-queue-delay, --max-spend-per-hour, --price-per-hour, --warm-hold) and it returns once a tick ran with them. A floor above the ceiling in force (or given) is refused and nothing changes.',
      )
      .argument(...ENDPOINT_ARGUMENT),
    true,
  )
    .addOption(new Option('--json', 'the ScalerState once a tick ran with the new settings'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice scale configure my-model --ceiling 12 --max-spend-per-hour none
  sluice scale configure my-model --floor 1 --interval 2s --target-per-worker 4 --warm-hold 0

${SCALE_CONTROL_EXIT_HELP}`,
    )
    .action(withExit(exit, configure));

  scale
    .command('status')
    .summary(
      "bounds, load, config, override, window, the last decisions with their reasons, and the endpoint's schedules",
    )
    .argument(...ENDPOINT_ARGUMENT)
    .addOption(decisionsOption())
    .addOption(
      new Option(
        '--json',
        "the view: workflowId, workflowStatus, state (the ScalerState, every decision kept), schedules (the endpoint's scale schedules)",
      ),
    )
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nExamples:\n  sluice scale status my-model\n  sluice scale status my-model --decisions 20\n  sluice scale status my-model --json\n\n${SCALE_EXIT_HELP}`,
    )
    .action(withExit(exit, status));

  scale
    .command('watch')
    .summary('show a scaler live (Ctrl-C stops watching, not the scaler)')
    .argument(...ENDPOINT_ARGUMENT)
    .addOption(
      new Option('--interval <duration>', 'time between lines when not on a terminal (and JSON lines with --json)')
        .argParser(parseDuration)
        .default(5000, '5s'),
    )
    .addOption(decisionsOption())
    .addOption(new Option('--json', 'JSON lines of the view'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nOn a terminal the status table is redrawn every second; elsewhere one line per --interval.

Example:
  sluice scale watch my-model

${SCALE_EXIT_HELP} 130: interrupted (the scaler keeps running).`,
    )
    .action(withExit(exit, watch));

  scale
    .command('override')
    .summary('pin workersMin/workersMax for a while (expires by itself), or --clear the pin')
    .argument(...ENDPOINT_ARGUMENT)
    .addOption(new Option('--min <n>', 'workersMin while pinned').argParser(parseWorkers))
    .addOption(new Option('--max <n>', 'workersMax while pinned').argParser(parseWorkers))
    .addOption(new Option('--for <duration>', 'how long the pin holds, e.g. 10m (1s to 30d)').argParser(parseDuration))
    .option('--clear', 'end the override now: the policy decides again')
    .addOption(new Option('--json', 'the ScalerState once the pin is written'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nReturns once the pinned bounds are written.

Examples:
  sluice scale override my-model --min 4 --max 8 --for 10m
  sluice scale override my-model --clear

${SCALE_CONTROL_EXIT_HELP}`,
    )
    .action(withExit(exit, override));

  // CLI verbs (the scaler's updates are pauseScaler and resumeScaler).
  for (const [name, pausing] of Object.entries({ pause: true, resume: false })) {
    scale
      .command(name)
      .summary(
        pausing
          ? 'keep the bounds as they are (samples go on); returns once no write is under way'
          : 'let the scaler change the bounds again',
      )
      .argument(...ENDPOINT_ARGUMENT)
      .addOption(new Option('--json', 'the ScalerState after the change'))
      .addOption(dataDirOption())
      .addHelpText('after', `\nExample:\n  sluice scale ${name} my-model\n\n${SCALE_CONTROL_EXIT_HELP}`)
      .action(withExit(exit, control(pausing)));
  }

  scale
    .command('stop')
    .summary('stop the scaler: it restores the bounds it found at start')
    .argument(...ENDPOINT_ARGUMENT)
    .addOption(new Option('--json', 'the view after the stop'))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nWaits until the bounds are restored. Afterwards \`sluice scale status\` reports it CANCELLED (exit 3).

Example:
  sluice scale stop my-model

${SCALE_CONTROL_EXIT_HELP}`,
    )
    .action(withExit(exit, stop));

  registerScheduleCommands(scale, exit);
}
