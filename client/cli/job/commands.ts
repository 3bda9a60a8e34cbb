/** The job orchestration's commands — `sluice run`, `status`, `cancel`, `result` — registered on the program by main. */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { jobWorkflowId } from '../../../contracts';
import { EndpointNotFoundError, resolveEndpoint } from '../../endpoints';
import { failureType } from '../../failures';
import { type JobClient } from '../../job';
import { connectCli, withExisting, type CliContext } from '../context';
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';
import { printFailure, printResult, watch } from './watch';
import { dataDirOption, jsonOption, parsePositiveInt, withExit, type ExitState } from '../options';
import { exitCodeOfView, phaseLabel } from './output';
import { describeSource, resolveSettings, type CliSettings } from '../settings';

function parseInput(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined) throw new UsageError('--input is required (JSON, or @file with JSON)');
  let text = raw;
  if (raw.startsWith('@')) {
    try {
      text = readFileSync(raw.slice(1), 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read ${raw.slice(1)}: ${(err as Error).message}`);
    }
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--input is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--input must be a JSON object');
  return value as Record<string, unknown>;
}

interface RunOptions {
  endpoint?: string;
  input?: string;
  stream?: boolean;
  webhook?: boolean;
  poll?: boolean;
  detach?: boolean;
  json?: boolean;
  id?: string;
  maxAttempts?: number;
  executionTimeout?: number;
  ttl?: number;
  dataDir: string;
}

/** Names can be looked up only with the service's GraphQL URL and key: say so before anything connects. */
export function assertLookup(settings: CliSettings, nameOrId: string): void {
  if (settings.config.SLUICE_GRAPHQL_URL && settings.config.SLUICE_API_KEY) return;
  throw new UsageError(
    `cannot look up endpoint ${nameOrId}: no GraphQL URL and API key (${describeSource(settings)}); set SLUICE_GRAPHQL_URL and SLUICE_API_KEY, or run \`sluice dev\` and leave the variables unset`,
  );
}

/** The endpoint's id, checked against the service before any workflow starts. */
export async function endpointIdOf(cli: CliContext, nameOrId: string): Promise<string> {
  assertLookup(cli.settings, nameOrId);
  return resolveEndpoint(nameOrId, cli.graphql!).catch((err: unknown) => {
    throw err instanceof EndpointNotFoundError ? new UsageError(err.message) : err;
  });
}

async function run(o: RunOptions): Promise<number> {
  if (!o.endpoint) throw new UsageError('--endpoint ID|NAME is required');
  if (o.webhook && o.poll) throw new UsageError('--webhook and --poll exclude each other');
  const input = parseInput(o.input);
  const settings = resolveSettings(o.dataDir);
  assertLookup(settings, o.endpoint);
  const cli = await connectCli(o.dataDir, settings);
  try {
    const endpointId = await endpointIdOf(cli, o.endpoint);
    let workflowId: string;
    try {
      workflowId = await cli.sluice.start({
        ...(o.id ? { id: o.id } : {}),
        endpointId,
        input,
        ...(o.executionTimeout || o.ttl
          ? {
              policy: {
                ...(o.executionTimeout ? { executionTimeout: o.executionTimeout } : {}),
                ...(o.ttl ? { ttl: o.ttl } : {}),
              },
            }
          : {}),
        options: {
          completion: o.poll ? 'poll' : 'webhook',
          stream: o.stream ?? false,
          ...(o.maxAttempts ? { retry: { maxAttempts: o.maxAttempts } } : {}),
        },
      });
    } catch (err) {
      if ((err as { name?: string }).name === 'ZodError')
        throw new UsageError(`invalid job: ${(err as Error).message}`);
      if (err instanceof WorkflowExecutionAlreadyStartedError)
        throw new UsageError(
          `job ${err.workflowId} is still running: an id is reused only after its job ended (sluice status ${err.workflowId})`,
        );
      throw err;
    }
    if (o.detach) {
      console.log(o.json ? JSON.stringify({ workflowId, endpointId }) : workflowId);
      return EXIT_CODES.ok;
    }
    if (!o.json) console.log(`started ${workflowId} on endpoint ${endpointId}`);
    return await watch(cli.sluice, workflowId, { json: o.json ?? false, stream: o.stream ?? false });
  } finally {
    await cli.close();
  }
}

interface IdOptions {
  json?: boolean;
  wait?: boolean;
  chunks?: boolean;
  dataDir: string;
}

/** Runs `fn` on an existing job (`no job ID` otherwise, exit 2). */
const withJob = (
  rawId: string,
  o: IdOptions,
  fn: (sluice: JobClient, id: string) => Promise<number>,
): Promise<number> => withExisting(o.dataDir, jobWorkflowId(rawId), 'job', (cli) => cli.sluice, fn);

const status = (rawId: string, o: IdOptions) =>
  withJob(rawId, o, async (sluice, id) => {
    const v = await sluice.state(id);
    if (o.json) console.log(JSON.stringify(v));
    else {
      console.log(`job         ${v.workflowId}\nworkflow    ${v.workflowStatus}`);
      if (v.state)
        console.log(
          `phase       ${phaseLabel(v)}\nremote job  ${v.state.remoteJobId ?? '-'} (${v.remote?.status ?? v.state.status ?? '-'})\nattempt     ${v.state.attempt}`,
        );
      if (v.progress !== undefined) console.log(`progress    ${JSON.stringify(v.progress)}`);
      if (v.failure) console.log(`failure     ${v.failure}`);
    }
    return exitCodeOfView(v);
  });

const cancel = (rawId: string, o: IdOptions) =>
  withJob(rawId, o, async (sluice, id) => {
    const v = await sluice.state(id);
    if (v.workflowStatus !== 'RUNNING') {
      const ended = v.result?.status ?? v.workflowStatus;
      if (o.json) console.log(JSON.stringify({ workflowId: id, status: ended, cancelled: false }));
      else console.error(`sluice: ${id} already ended ${ended}; nothing to cancel`);
      return EXIT_CODES.failed;
    }
    await sluice.cancel(id);
    const outcome = await sluice.result(id).then(
      (r) => r.status,
      (err: unknown) => failureType(err) ?? 'FAILED',
    );
    if (o.json) console.log(JSON.stringify({ workflowId: id, status: outcome }));
    else
      console.log(
        outcome === 'CANCELLED'
          ? `${id}: CANCELLED (the remote job was cancelled)`
          : `${id}: ended ${outcome} before the cancel took effect`,
      );
    return outcome === 'CANCELLED' ? EXIT_CODES.ok : EXIT_CODES.failed;
  });

const result = (rawId: string, o: IdOptions) =>
  withJob(rawId, o, async (sluice, id) => {
    if (o.chunks) {
      if (o.wait) await sluice.result(id).catch(() => undefined);
      for (const c of await sluice.streamChunks(id))
        console.log(JSON.stringify((c as { output?: unknown } | null)?.output ?? c));
      return EXIT_CODES.ok;
    }
    const v = await sluice.state(id);
    if (v.workflowStatus === 'RUNNING' && !o.wait) {
      if (o.json) console.log(JSON.stringify({ workflowId: id, status: 'RUNNING' }));
      else
        console.log(
          `${id} is still running (${v.state ? phaseLabel(v) : 'running'}); sluice result ${id} --wait waits for it`,
        );
      return EXIT_CODES.running;
    }
    try {
      return await printResult(sluice, id, await sluice.result(id), o.json ?? false);
    } catch (err) {
      return printFailure(id, err, o.json ?? false);
    }
  });

const JOB_STATE_EXIT =
  "Exit code: the job's state — 0 completed, 1 failed / timed out / expired, 3 cancelled, 4 still running; 2 usage (no such job).";

/** Registers `run`, `status`, `cancel` and `result`. */
export function registerJobCommands(program: Command, exit: ExitState): void {
  program
    .command('run')
    .summary('run a job through a durable workflow, shown live')
    .description(
      'Starts a job workflow on an endpoint (by id or name; an unknown endpoint is refused before anything starts, naming those that exist) and shows its phases, progress and (with --stream) its chunks until it ends.',
    )
    .addOption(new Option('--endpoint <id|name>', 'endpoint id or name (required)'))
    .addOption(new Option('--input <json|@file>', 'the job input: a JSON object, or @file holding one (required)'))
    .option('--stream', "stream the job's output: print each chunk as it is stored")
    .option('--webhook', 'learn of completion by webhook, with a polling fallback (the default)')
    .option('--poll', 'learn of completion by polling /status')
    .option('--detach', 'print the workflow id and return at once')
    .addOption(jsonOption())
    .option(
      '--id <id>',
      'workflow id (job/<id>); default a random UUID. Refused while a job with that id runs; after it ended, the id starts a new run with its own records',
    )
    .addOption(
      new Option(
        '--max-attempts <n>',
        "attempts, retries of FAILED / TIMED_OUT included (default: the job options' default, 3)",
      ).argParser(parsePositiveInt),
    )
    .addOption(
      new Option('--execution-timeout <ms>', "the service's execution timeout of the job").argParser(parsePositiveInt),
    )
    .addOption(new Option('--ttl <ms>', "the service's time to live of the job").argParser(parsePositiveInt))
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `
Examples:
  sluice run --endpoint echo --input '{"hello":"world"}'
  sluice run --endpoint stream --input '{"chunks":5}' --stream
  sluice run --endpoint sleep --input @job.json --detach --json

Exit code: 0 completed, 1 failed / timed out / expired, 2 usage, 3 cancelled, 130 interrupted (the job goes on).`,
    )
    .action(withExit(exit, (o: RunOptions) => run(o)));

  program
    .command('status')
    .summary('workflow status, phase, remote job, progress')
    .argument('<id>', 'the job: job/<id> or <id>')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText('after', `\nExample:\n  sluice status job/4f7c...\n\n${JOB_STATE_EXIT}`)
    .action(withExit(exit, status));

  program
    .command('cancel')
    .summary('cancel the job and its remote job')
    .argument('<id>', 'the job: job/<id> or <id>')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nCancels the workflow, which cancels the remote job, and waits until it has ended.

Example:
  sluice cancel job/4f7c...

Exit code: 0 the job was cancelled, 1 it had already ended (or ended otherwise before the cancel took effect), 2 usage.
Afterwards \`sluice status\` and \`sluice result\` report it CANCELLED (exit 3).`,
    )
    .action(withExit(exit, cancel));

  program
    .command('result')
    .summary("the job's result (exit 4 while it still runs)")
    .argument('<id>', 'the job: job/<id> or <id>')
    .option('--wait', 'wait for a running job to end')
    .option('--chunks', 'print the stream chunks stored for the job, one JSON per line')
    .addOption(jsonOption())
    .addOption(dataDirOption())
    .addHelpText(
      'after',
      `\nExamples:\n  sluice result job/4f7c... --json\n  sluice result job/4f7c... --chunks\n\n${JOB_STATE_EXIT}`,
    )
    .action(withExit(exit, result));
}
