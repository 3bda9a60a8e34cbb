import { UsageError } from './errors';
import { platformCommand } from './commands/platform';
import { demoCommand } from './commands/demo';
import { workerCommand } from './commands/worker';

/** Exit codes of `sluice`: scripts tell outcomes apart by them. */
export const EXIT = { ok: 0, failed: 1, usage: 2, cancelled: 3 } as const;

const HELP = `sluice — durable orchestration for serverless GPU job queues

Usage:
  sluice platform [--port N] [--data-dir DIR] [--api-key KEY]   start the local serverless platform
  sluice platform users add NAME [--data-dir DIR] [--json]      create a user and print its API key
  sluice worker                                                 run the orchestrator daemon (env: TEMPORAL_*, SLUICE_*)
  sluice demo [--port N] [--data-dir DIR]                       start the platform and run example jobs

Environment: SLUICE_API_KEY (platform key), SLUICE_LOG_LEVEL, SLUICE_LOG_PRETTY.`;

/** Entry point of the `sluice` command; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'platform':
        return await platformCommand(rest);
      case 'worker':
        return await workerCommand(rest);
      case 'demo':
        return await demoCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(HELP);
        return EXIT.ok;
      default:
        throw new UsageError(`unknown command "${command}"; run "sluice help"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      console.error(`sluice: ${(err as Error).message}`);
      return EXIT.usage;
    }
    throw err;
  }
}
