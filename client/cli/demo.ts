/** `sluice demo` (what `npm start` runs): the dev stack, then example jobs through the job workflow, shown live (demo-run.ts). */
import { type Command } from 'commander';
import { DEMO_COMMAND } from './groups';
import { addStackOptions, STACK_ENV_HELP } from './dev';
import { lazyAction, parsePort, withExit, type ExitState } from './options';

/** Registers `sluice demo`. */
export function registerDemoCommand(program: Command, exit: ExitState): void {
  addStackOptions(program.command('demo'))
    .summary(DEMO_COMMAND.summary)
    .description(
      'Starts the stack as `sluice dev` does (the web console too: its URL is printed), then runs an echo, a stream, a flaky job that is retried and one that is cancelled, showing each live, then a batch of 300 mixed jobs (a per-tenant cap, failures, a retried flaky job, malformed lines) with its progress bar and where its results are. The stack keeps running afterwards (Ctrl-C stops it) unless --exit.',
    )
    .option('--exit', 'stop the stack after the example jobs')
    .option(
      '--console-port <n>',
      "the web console's port, on 127.0.0.1 (default: --daemon-port + 1; any free port when that is 0)",
      parsePort,
    )
    .addHelpText(
      'after',
      `${STACK_ENV_HELP}

Example:
  sluice demo --exit`,
    )
    .action(
      withExit(
        exit,
        lazyAction(
          () => import('./demo-run'),
          (m) => m.demo,
        ),
      ),
    );
}
