/** `sluice config`: the settings the job commands use, and where each came from (secrets masked). */
import { type Command } from 'commander';
import { CONFIG_COMMAND } from './groups';
import { dataDirOption, jsonOption, withExit, type ExitState } from './options';

/** The client variables, for every command's help (the daemon reads the same). */
export const CLIENT_ENV_HELP = `  TEMPORAL_ADDRESS                Temporal frontend host:port (localhost:7233)
  TEMPORAL_NAMESPACE              (default)
  TEMPORAL_API_KEY                Temporal Cloud API key (turns TLS on)
  TEMPORAL_PROFILE, TEMPORAL_CONFIG_FILE  a temporal.toml profile (default: profile "default" of
                                  ~/.config/temporalio/temporal.toml); the variables override it
  TEMPORAL_TLS                    true/false (on with an API key, a client certificate or a CA)
  TEMPORAL_TLS_SERVER_CA_CERT_PATH  the CA of a self-hosted server's certificate
  TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH, TEMPORAL_TLS_SERVER_NAME  mTLS
                                  (or *_DATA: the PEM itself); TEMPORAL_GRPC_META_<name>: headers
  SLUICE_TASK_QUEUE               the daemon's task queue (sluice)
  SLUICE_QUEUE_URL                queue API base incl. /v2, e.g. https://api.runpod.ai/v2
  SLUICE_REST_URL, SLUICE_GRAPHQL_URL  control plane (GraphQL looks endpoints up by name)
  SLUICE_API_KEY                  the service's API key
  SLUICE_RESULTS_DIR              the daemon's results directory (<data-dir>/results)
  SLUICE_RESULTS_URL              the results store instead: s3://bucket/prefix (AWS_ENDPOINT_URL_S3,
                                  AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION), file:///dir or a dir`;

/** The rule of precedence, for help texts. */
export const SETTINGS_SOURCE_HELP = `Settings come from ONE source: the environment if any of these variables is set, else the
dev.json that \`sluice dev\` wrote in the data dir (--data-dir, SLUICE_DATA_DIR, default .data),
else the defaults. \`sluice config\` shows which values are in force and where each came from.`;

async function config(o: { json?: boolean; dataDir: string }): Promise<number> {
  const { describeSource, resolveSettings, settingsReport } = await import('./settings');
  const s = resolveSettings(o.dataDir);
  const report = settingsReport(s);
  if (o.json) {
    console.log(JSON.stringify(report));
    return 0;
  }
  console.log(describeSource(s));
  const width = Math.max(...Object.keys(report.settings).map((k) => k.length));
  for (const [name, { value, from }] of Object.entries(report.settings)) {
    console.log(`  ${name.padEnd(width)}  ${value === null ? '-' : String(value)}  (${from})`);
  }
  return 0;
}

/** Registers `sluice config`. */
export function registerConfigCommand(program: Command, exit: ExitState): void {
  program
    .command('config')
    .summary(CONFIG_COMMAND.summary)
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
${SETTINGS_SOURCE_HELP}
Invalid values are all reported at once (exit 2). API keys are masked.

Environment:
${CLIENT_ENV_HELP}

Examples:
  sluice config
  SLUICE_DATA_DIR=/tmp/sluice sluice config --json`,
    )
    .action(withExit(exit, config));
}
