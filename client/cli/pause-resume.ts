/**
 * `pause` and `resume`: one pair of commands for every orchestration that has them (batch, pipeline, scaler), the
 * kind's words in, the commands out.
 */
import { type Command, Option } from 'commander';
import { dataDirOption, lazyAction, withExit, type ExitState } from './options';

/** What one orchestration's pause and resume say: the rest of the two commands is the same for every kind. */
export interface PauseResumeWords {
  /** The argument that names the running thing: `[name, description]`. */
  argument: readonly [string, string];
  /** Each command's summary in the group's help. */
  summary: { pause: string; resume: string };
  /** The name of the state `--json` prints after the change (`BatchState`). */
  state: string;
  /** What the example passes as the argument (`batch/nightly`). */
  example: string;
  /** The help's last lines: the exit codes. */
  exitHelp: string;
}

/** The exit codes of a pause or resume of a batch or a pipeline (`kind`: batch, pipeline). */
export const idControlExitHelp = (kind: string): string =>
  `Exit code: 0 done, 1 the ${kind} had already ended, 2 usage (no such ${kind}).`;

/** The CLI's verbs (the order help lists them in), and whether each pauses. */
const PAUSING = { pause: true, resume: false } as const;

/**
 * Registers `pause` and `resume` on the group (in that order); `load` loads the group's actions when one runs, whose
 * `control(pausing)` sends the kind's own update.
 */
export function pauseResumeCommands<A extends unknown[]>(
  group: Command,
  exit: ExitState,
  words: PauseResumeWords,
  load: () => Promise<{ control: (pausing: boolean) => (...args: A) => Promise<number> | number }>,
): void {
  for (const name of Object.keys(PAUSING) as (keyof typeof PAUSING)[]) {
    const pausing = PAUSING[name];
    group
      .command(name)
      .summary(words.summary[name])
      .argument(...words.argument)
      .addOption(new Option('--json', `the ${words.state} after the change`))
      .addOption(dataDirOption())
      .addHelpText('after', `\nExample:\n  sluice ${group.name()} ${name} ${words.example}\n\n${words.exitHelp}`)
      .action(
        withExit(
          exit,
          lazyAction(load, (m) => m.control(pausing)),
        ),
      );
  }
}
