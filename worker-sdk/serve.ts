import { ConfigError, ShutdownError, describeError } from './errors';
import { HttpSink } from './delivery';
import { loadConfig } from './config';
import { log } from './log';
import { pingEnabled, pingLoop } from './ping';
import { Runner } from './runner';
import { runLocal, testInputArg } from './local';
import { stopLoop } from './stop-loop';
import { Transport } from './transport';
import { type Handler, type ServeOptions } from './types';

function positiveInt(name: string, value: number | undefined, fallback: number, min: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min) throw new ConfigError(`${name} must be an integer >= ${min}, got ${String(v)}`);
  return v;
}

function finish(code: number, exitProcess: boolean): void {
  process.exitCode = code;
  // Runs after the caller's continuation of `await serve(...)`.
  if (exitProcess) setImmediate(() => process.exit(code));
}

/**
 * Runs a worker: with `RUNPOD_WEBHOOK_GET_JOB` set, polls the platform for jobs and runs `handler`
 * on each until SIGTERM/SIGINT (or `options.signal`); then stops taking jobs, lets running ones
 * finish for `shutdownGraceMs`, and resolves. Without it (or with `--test_input`), runs one job
 * from `--test_input '<json>'` or `./test_input.json`, prints the result and resolves.
 * Unless `exitProcess: false`, the process then exits (0, or 1 when the test job failed).
 * Rejects with {@link ConfigError} on a malformed environment or options.
 */
export async function serve<I = Record<string, unknown>>(
  handler: Handler<I>,
  options: ServeOptions = {},
): Promise<void> {
  const run = handler as unknown as Handler<unknown>;
  const env = options.env ?? process.env;
  const exitProcess = options.exitProcess ?? true;
  const concurrency = positiveInt('concurrency', options.concurrency, 1, 1);
  const graceMs = positiveInt('shutdownGraceMs', options.shutdownGraceMs, 10_000, 0);
  const cfg = loadConfig(env);
  const testInput = testInputArg(options.argv ?? process.argv.slice(2));

  if (cfg === undefined || testInput !== undefined) {
    const ok = await runLocal(run, testInput, options.signal);
    finish(ok ? 0 : 1, exitProcess);
    return;
  }

  const transport = new Transport(cfg.apiKey);
  const sink = new HttpSink(cfg, transport);
  const runner = new Runner(cfg, transport, sink, run, concurrency, {
    returnAggregateStream: options.returnAggregateStream ?? false,
  });
  const stopping = new AbortController();
  const halt = new AbortController();

  const onSignal = (sig: NodeJS.Signals): void => {
    if (!stopping.signal.aborted) {
      log('info', 'shutting down', { signal: sig, running: runner.runningIds().length, graceMs });
      stopping.abort();
    } else {
      log('warn', 'second signal, abandoning running jobs', { signal: sig });
      runner.abortAll(new ShutdownError('worker shut down before the job finished'));
    }
  };
  const onExternalAbort = (): void => onSignal('SIGTERM');
  const handleSignals = options.handleSignals ?? true;
  if (handleSignals) {
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  }
  if (options.signal?.aborted) stopping.abort();
  options.signal?.addEventListener('abort', onExternalAbort, { once: true });

  log('info', 'worker started', {
    podId: cfg.podId,
    endpointId: cfg.endpointId,
    concurrency,
    stopLoop: cfg.stopUrl !== undefined,
    ping: pingEnabled(cfg),
  });
  const background = [
    cfg.stopUrl === undefined ? Promise.resolve() : stopLoop(cfg.stopUrl, transport, runner, halt.signal),
    pingLoop(cfg, transport, runner, halt.signal),
  ].map((p) => p.catch((err: unknown) => log('error', 'background loop failed', { error: describeError(err) })));

  try {
    await runner.takeLoop(stopping.signal);
    const drained = await runner.drain(graceMs);
    log('info', 'worker stopped', { drained });
  } finally {
    halt.abort();
    await Promise.all(background);
    if (handleSignals) {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    }
    options.signal?.removeEventListener('abort', onExternalAbort);
  }
  finish(0, exitProcess);
}
