import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { WorkflowFailedError } from '@temporalio/client';
import { jobWorkflowId, type JobWorkflowResult } from '../../contracts';
import { connectCli } from './context';
import { EndpointNotFoundError, resolveEndpoint } from '../endpoints';
import { UsageError } from './errors';
import { EXIT_CODES } from './exit-codes';
import { failureMessage, failureType } from '../failures';
import { type JobClient } from '../job';
import { describeResult, exitCodeOf } from './output';

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
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--input must be a JSON object');
  return value as Record<string, unknown>;
}

/** `sluice run`: starts a job workflow and (unless --detach) shows it live until it ends. */
export async function runCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      endpoint: { type: 'string' }, input: { type: 'string' }, stream: { type: 'boolean' }, webhook: { type: 'boolean' },
      poll: { type: 'boolean' }, detach: { type: 'boolean' }, json: { type: 'boolean' }, id: { type: 'string' },
      'max-attempts': { type: 'string' }, 'execution-timeout': { type: 'string' }, ttl: { type: 'string' },
    },
  });
  if (!values.endpoint) throw new UsageError('--endpoint ID|NAME is required');
  if (values.webhook && values.poll) throw new UsageError('--webhook and --poll exclude each other');
  const input = parseInput(values.input);
  const int = (name: string, v: string | undefined) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n <= 0) throw new UsageError(`--${name} must be a positive integer`);
    return n;
  };
  const maxAttempts = int('max-attempts', values['max-attempts']);
  const executionTimeout = int('execution-timeout', values['execution-timeout']);
  const ttl = int('ttl', values.ttl);
  const cli = await connectCli();
  try {
    if (!cli.graphql) throw new UsageError(`cannot look up endpoint ${values.endpoint}: no GraphQL URL and API key (set SLUICE_GRAPHQL_URL and SLUICE_API_KEY, or start \`sluice dev\`)`);
    const endpointId = await resolveEndpoint(values.endpoint, cli.graphql).catch((err: unknown) => {
      throw err instanceof EndpointNotFoundError ? new UsageError(err.message) : err;
    });
    let workflowId: string;
    try {
      workflowId = await cli.sluice.start({
        ...(values.id ? { id: values.id } : {}),
        endpointId,
        input,
        ...(executionTimeout || ttl ? { policy: { ...(executionTimeout ? { executionTimeout } : {}), ...(ttl ? { ttl } : {}) } } : {}),
        options: { completion: values.poll ? 'poll' : 'webhook', stream: values.stream ?? false, ...(maxAttempts ? { retry: { maxAttempts } } : {}) },
      });
    } catch (err) {
      if ((err as { name?: string }).name === 'ZodError') throw new UsageError(`invalid job: ${(err as Error).message}`);
      throw err;
    }
    if (values.detach) {
      console.log(values.json ? JSON.stringify({ workflowId, endpointId }) : workflowId);
      return EXIT_CODES.ok;
    }
    if (!values.json) console.log(`started ${workflowId} on endpoint ${endpointId}`);
    return await watch(cli.sluice, workflowId, { json: values.json ?? false, stream: values.stream ?? false });
  } finally {
    await cli.close();
  }
}

/** Shows state changes (and stream chunks) until the job ends; returns the exit code. */
async function watch(sluice: JobClient, workflowId: string, o: { json: boolean; stream: boolean }): Promise<number> {
  let last = '';
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
  };
  process.once('SIGINT', onSigint);
  const resultP = sluice.result(workflowId).then((r) => ({ r }), (err: unknown) => ({ err }));
  // Chunks are printed as the daemon stores them, beside the state lines.
  const following = o.stream && !o.json
    ? (async () => {
        for await (const c of sluice.follow(workflowId)) console.log(`  chunk ${JSON.stringify((c as { output?: unknown }).output ?? c)}`);
      })().catch(() => undefined)
    : Promise.resolve();
  try {
    for (;;) {
      const done = await Promise.race([resultP, new Promise<undefined>((r) => setTimeout(() => r(undefined), 300))]);
      if (interrupted) {
        console.error(`stopped watching; the job goes on: sluice status ${workflowId}`);
        return EXIT_CODES.interrupted;
      }
      const view = await sluice.state(workflowId).catch(() => undefined);
      const st = view?.state;
      const remoteStatus = view?.remote?.status ?? st?.status ?? '';
      const line = st ? `${st.phase} ${remoteStatus} attempt ${st.attempt}${st.remoteJobId ? ` remote ${st.remoteJobId}` : ''}${view?.progress !== undefined ? ` progress ${JSON.stringify(view.progress)}` : ''}` : '';
      if (!o.json && line && line !== last) console.log(`  ${new Date().toISOString().slice(11, 23)}  ${line}`);
      last = line || last;
      if (!done) continue;
      await following;
      if ('err' in done) {
        const type = failureType(done.err);
        const message = done.err instanceof WorkflowFailedError ? failureMessage(done.err) : (done.err as Error).message;
        if (o.json) console.log(JSON.stringify({ workflowId, status: type === 'CANCELLED' ? 'CANCELLED' : 'FAILED', failure: type, message }));
        else console.log(`job ${type === 'CANCELLED' ? 'cancelled' : 'failed'}: ${message}`);
        return type === 'CANCELLED' ? EXIT_CODES.cancelled : EXIT_CODES.failed;
      }
      return printResult(sluice, workflowId, done.r, o.json);
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
}

function printResult(sluice: JobClient, workflowId: string, r: JobWorkflowResult, json: boolean): number {
  const output = sluice.output(r);
  if (json) console.log(JSON.stringify({ workflowId, ...r, output }));
  else console.log(describeResult(r, output));
  return exitCodeOf(r.status);
}

function idArg(argv: string[], usage: string) {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { json: { type: 'boolean' }, wait: { type: 'boolean' } } });
  if (positionals.length !== 1) throw new UsageError(usage);
  const id = positionals[0]!;
  return { id: jobWorkflowId(id), json: values.json ?? false, wait: values.wait ?? false };
}

async function withExisting<T>(id: string, fn: (sluice: JobClient) => Promise<T>): Promise<T> {
  const cli = await connectCli();
  try {
    if (!(await cli.sluice.exists(id))) throw new UsageError(`no job ${id}`);
    return await fn(cli.sluice);
  } finally {
    await cli.close();
  }
}

/** `sluice status ID`: workflow status, live state, progress. */
export async function statusCommand(argv: string[]): Promise<number> {
  const a = idArg(argv, 'usage: sluice status ID [--json]');
  return withExisting(a.id, async (sluice) => {
    const v = await sluice.state(a.id);
    if (a.json) console.log(JSON.stringify(v));
    else {
      console.log(`job         ${v.workflowId}\nworkflow    ${v.workflowStatus}`);
      if (v.state) console.log(`phase       ${v.state.phase}\nremote job  ${v.state.remoteJobId ?? '-'} (${v.remote?.status ?? v.state.status ?? '-'})\nattempt     ${v.state.attempt}`);
      if (v.progress !== undefined) console.log(`progress    ${JSON.stringify(v.progress)}`);
      if (v.failure) console.log(`failure     ${v.failure}`);
    }
    return v.workflowStatus === 'RUNNING' ? EXIT_CODES.ok : v.result ? exitCodeOf(v.result.status) : v.workflowStatus === 'CANCELLED' ? EXIT_CODES.cancelled : EXIT_CODES.failed;
  });
}

/** `sluice cancel ID`: cancels the workflow, which cancels the remote job. */
export async function cancelCommand(argv: string[]): Promise<number> {
  const a = idArg(argv, 'usage: sluice cancel ID [--json]');
  return withExisting(a.id, async (sluice) => {
    await sluice.cancel(a.id);
    const outcome = await sluice.result(a.id).then((r) => r.status, (err: unknown) => failureType(err) ?? 'FAILED');
    if (a.json) console.log(JSON.stringify({ workflowId: a.id, status: outcome }));
    else console.log(`${a.id}: ${outcome}`);
    return outcome === 'CANCELLED' ? EXIT_CODES.cancelled : exitCodeOf(outcome);
  });
}

/** `sluice result ID [--wait]`: the result of a finished job (exit 4 while it runs, unless --wait). */
export async function resultCommand(argv: string[]): Promise<number> {
  const a = idArg(argv, 'usage: sluice result ID [--wait] [--json]');
  return withExisting(a.id, async (sluice) => {
    const v = await sluice.state(a.id);
    if (v.workflowStatus === 'RUNNING' && !a.wait) {
      if (a.json) console.log(JSON.stringify({ workflowId: a.id, status: 'RUNNING' }));
      else console.log(`${a.id} is still running`);
      return EXIT_CODES.running;
    }
    try {
      return printResult(sluice, a.id, await sluice.result(a.id), a.json);
    } catch (err) {
      const type = failureType(err);
      if (a.json) console.log(JSON.stringify({ workflowId: a.id, status: type === 'CANCELLED' ? 'CANCELLED' : 'FAILED', failure: type, message: failureMessage(err) }));
      else console.log(`job ${type === 'CANCELLED' ? 'cancelled' : 'failed'}: ${failureMessage(err)}`);
      return type === 'CANCELLED' ? EXIT_CODES.cancelled : EXIT_CODES.failed;
    }
  });
}
