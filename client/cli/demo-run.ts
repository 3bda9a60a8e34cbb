/** What `sluice demo` does (demo.ts registers it): the dev stack, then example jobs and a batch through it, shown live. */
import { dirname, join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { QueueClient } from '../../platform-api';
import { devBanner, startDevStack } from './dev/stack';
import { failureMessage, failureType } from '../failures';
import { BatchClient } from '../batch';
import { JobClient } from '../job';
import { runDemoBatch } from './demo-batch';
import { checkStackPorts, devConsolePort, startDevConsole, type StackOptions } from './dev';
import { assertPortsFree } from './ports';
import { phaseLabel } from './job/output';
import { untilSignal } from './platform';

const say = (line: string): void => console.log(`[demo] ${line}`);

/** Shows a job live (its phases, progress and, with `follow`, its chunks) until it ends, then its outcome; false when it did not behave (failed other than by a cancel). */
async function showJob(sluice: JobClient, title: string, workflowId: string, follow: boolean): Promise<boolean> {
  say(`${title}: ${workflowId}`);
  // Chunks and phase lines come from one loop: the chunks stored so far first, so none follows `done`.
  let last = '';
  let printed = 0;
  for (;;) {
    const v = await sluice.state(workflowId);
    if (follow) {
      const chunks = await sluice.streamChunks(workflowId);
      for (const c of chunks.slice(printed)) say(`  chunk ${JSON.stringify((c as { output?: unknown }).output ?? c)}`);
      printed = Math.max(printed, chunks.length);
    }
    const line = `${phaseLabel(v)}${v.progress !== undefined ? ` progress ${JSON.stringify(v.progress)}` : ''}`;
    if (line !== last) say(`  ${line}`);
    last = line;
    if (v.workflowStatus !== 'RUNNING') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  try {
    const r = await sluice.result(workflowId);
    say(
      `  => ${r.status} after ${r.attempts.length} attempt(s) [${r.attempts.map((a) => `${a.how}:${a.status}`).join(', ')}]${r.streamChunks ? `, ${r.streamChunks} chunks stored` : ''}`,
    );
    say(`  output ${JSON.stringify(await sluice.output(r))}`);
    return true;
  } catch (err) {
    say(`  => ${failureType(err) ?? 'FAILED'}: ${failureMessage(err)}`);
    return failureType(err) === 'CANCELLED';
  }
}

/**
 * `sluice demo` (what `npm start` runs): the dev stack, then a few example jobs through the job
 * workflow, shown live — an echo, a stream, a flaky job that is retried, and one cancelled — then
 * a batch of a few hundred mixed jobs with a per-key cap and its progress bar.
 * The stack keeps running afterwards for the Temporal UI and further `sluice run`s.
 */
export async function demo(o: StackOptions & { exit?: boolean; consolePort?: number }): Promise<number> {
  const consolePort = devConsolePort(o);
  await checkStackPorts(o);
  await assertPortsFree([{ port: consolePort, what: 'the console', change: 'choose another with --console-port' }]);
  // The demo's own lines are the story; the stack's info logs would drown them (SLUICE_LOG_LEVEL=info brings them back).
  process.env.SLUICE_LOG_LEVEL ??= 'warn';
  const stack = await startDevStack({
    port: o.port,
    temporalPort: o.temporalPort,
    daemonPort: o.daemonPort,
    dataDir: o.dataDir,
  });
  // The console, as `sluice dev` serves it: the demo's jobs and batch are on its pages while they run.
  const web = await startDevConsole(o.dataDir, consolePort).catch(async (err: unknown) => {
    await stack.stop();
    throw err;
  });
  console.log(devBanner(stack, web.url));
  const connection = await Connection.connect({ address: stack.temporal.address });
  const queue = new QueueClient({ baseUrl: `${stack.platform.url}/v2`, apiKey: stack.platform.apiKey });
  const client = new Client({ connection, namespace: stack.temporal.namespace });
  const sluice = new JobClient({ client, taskQueue: stack.state.taskQueue, resultsDir: stack.state.resultsDir, queue });
  const batch = new BatchClient({ client, taskQueue: stack.state.taskQueue, resultsDir: stack.state.resultsDir });
  const ep = stack.platform.examples;
  let failures = 0;
  const show = async (title: string, workflowId: string, follow = false): Promise<void> => {
    if (!(await showJob(sluice, title, workflowId, follow))) failures++;
  };
  try {
    await show('echo', await sluice.start({ endpointId: ep.echo!.id, input: { hello: 'world' } }));
    await show(
      'stream (8 chunks)',
      await sluice.start({ endpointId: ep.stream!.id, input: { chunks: 8, delayMs: 150 }, options: { stream: true } }),
      true,
    );
    await show(
      'flaky (fails twice, retried with /retry)',
      await sluice.start({
        endpointId: ep.flaky!.id,
        input: { counterFile: join(stack.state.resultsDir, `flaky-${Date.now()}.count`), failTimes: 2 },
        options: { retry: { maxAttempts: 3, initialBackoffMs: 500 } },
      }),
    );
    const long = await sluice.start({ endpointId: ep.sleep!.id, input: { ms: 60_000, progress: true } });
    setTimeout(() => void sluice.cancel(long).catch(() => undefined), 4000);
    await show('sleep 60 s, cancelled after 4 s', long);
    const batchOk = await runDemoBatch(batch, {
      endpointId: ep.mixed!.id,
      dataDir: dirname(stack.state.resultsDir),
      tty: Boolean(process.stderr.isTTY),
      say,
      consoleUrl: web.url,
    });
    if (!batchOk) failures++;
  } finally {
    await connection.close();
    await queue.close();
  }
  say(
    failures === 0
      ? 'all demo jobs and the batch behaved as expected'
      : `${failures} demo job(s) or the batch did not behave as expected`,
  );
  say(
    `the stack keeps running: console ${web.url}, Temporal UI ${stack.temporal.uiUrl ?? '(external)'}; try: npx sluice run --endpoint echo --input '{"x":1}'; Ctrl-C stops it`,
  );
  if (!o.exit) await Promise.race([untilSignal(), stack.daemon.done]);
  await web.close();
  await stack.stop();
  return failures === 0 ? 0 : 1;
}
