/** The scaler's settings as options of `sluice scaler start` (with their defaults) and `configure` (where `none` clears an optional one). */
import { type Command, Option } from 'commander';
import { ScalerOptions } from '../../../contracts';
import { orNone, parseDuration, parseDuration0, parsePositive, parseUsd, parseWorkers } from './parse';

/** The library's defaults, shown in help. */
const D = ScalerOptions.parse({});
const s = (ms: number): string => `${ms / 1000}s`;
/** The scaler's settings as options of `start`, or of `configure` (`clearable`: no defaults shown, `none` clears an optional one). */
export function settingOptions(cmd: Command, clearable: boolean): Command {
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
