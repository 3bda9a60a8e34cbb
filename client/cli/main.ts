import { UsageError } from './errors';
import { EXIT_CODES } from './exit-codes';
import { platformCommand } from './platform';
import { demoCommand } from './demo';
import { workerCommand } from './worker';
import { devCommand } from './dev';
import { cancelCommand, resultCommand, runCommand, statusCommand } from './job';

export { EXIT_CODES as EXIT } from './exit-codes';

const HELP = `sluice — durable orchestration for serverless GPU job queues

Usage:
  sluice dev [--port 8080] [--temporal-port 7233] [--daemon-port 8288] [--data-dir .data]
                                   Temporal dev server + platform + daemon; prints every URL and key
  sluice run --endpoint ID|NAME --input JSON|@file [--stream] [--webhook|--poll] [--detach] [--json]
             [--id ID] [--max-attempts N] [--execution-timeout MS] [--ttl MS]
                                   run a job through a durable workflow, shown live
  sluice status ID [--json]        workflow status, remote job, progress
  sluice cancel ID [--json]        cancel the job (and the remote job)
  sluice result ID [--wait] [--json]
                                   the job's result (exit 4 while it still runs)
  sluice platform [--port N] [--data-dir DIR] [--api-key KEY]   start the local serverless platform
  sluice platform users add NAME [--data-dir DIR] [--json]      create a user and print its API key
  sluice worker                                                 run the orchestrator daemon (env: TEMPORAL_*, SLUICE_*)
  sluice demo [--port N] [--data-dir DIR]                       start the platform and run example jobs

Exit codes: 0 completed, 1 failed/timed out/expired, 2 usage, 3 cancelled, 4 still running, 130 interrupted.
Environment: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, SLUICE_API_KEY, SLUICE_RESULTS_DIR,
SLUICE_LOG_LEVEL, SLUICE_LOG_PRETTY; without them the commands use what "sluice dev" wrote to .data/dev.json.`;

/** Entry point of the `sluice` command; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'platform':
        return await platformCommand(rest);
      case 'dev':
        return await devCommand(rest);
      case 'run':
        return await runCommand(rest);
      case 'status':
        return await statusCommand(rest);
      case 'cancel':
        return await cancelCommand(rest);
      case 'result':
        return await resultCommand(rest);
      case 'worker':
        return await workerCommand(rest);
      case 'demo':
        return await demoCommand(rest);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        console.log(HELP);
        return EXIT_CODES.ok;
      default:
        throw new UsageError(`unknown command "${command}"; run "sluice help"`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || (err as { code?: string }).code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      console.error(`sluice: ${(err as Error).message}`);
      return EXIT_CODES.usage;
    }
    throw err;
  }
}
