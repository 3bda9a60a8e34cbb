/** `sluice batch` as a real process on a real stack: progress lines, status, results, list, pause / resume / cancel, Ctrl-C, exit codes, bad input. */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BatchClient } from '../../client/batch';
import { buildProgram, main } from '../../client/cli/main';
import { inputFile, mixedEndpoint, readJsonl, type Stack } from '../batch/helpers';
import { orchestratorStack } from '../helpers/orchestrator';
import { eventually } from '../helpers/platform';
import { bin, stackEnv, sluice as runSluice, startSluice } from './run-sluice';

describe('sluice batch', () => {
  let s: Stack;
  let env: NodeJS.ProcessEnv;
  let cwd: string;
  let ep: string;
  let batch: BatchClient;
  beforeAll(async () => {
    s = await orchestratorStack();
    cwd = mkdtempSync(join(tmpdir(), 'sluice-batch-cli-'));
    env = stackEnv(s);
    ep = mixedEndpoint(s, 'cli-batch', 4);
    batch = new BatchClient({ client: s.env.client, resultsDir: s.resultsDir });
  });
  afterAll(async () => {
    await s?.dispose();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  const sluice = (...args: string[]) => runSluice(args, { env, cwd });
  /** Runs `sluice` in this process (usage errors, which never connect): its exit code and stderr. */
  const inProcess = async (...args: string[]) => {
    let stderr = '';
    const write = vi
      .spyOn(process.stderr, 'write')
      .mockImplementation((c: string | Uint8Array) => ((stderr += String(c)), true));
    const error = vi
      .spyOn(console, 'error')
      .mockImplementation((...a: unknown[]) => void (stderr += `${a.join(' ')}\n`));
    try {
      return { code: await main(args), stderr };
    } finally {
      write.mockRestore();
      error.mockRestore();
    }
  };
  const json = <T = Record<string, unknown>>(out: string): T => JSON.parse(out.trim().split('\n').at(-1)!) as T;

  it('start by endpoint name: plain progress lines off a terminal, the status table, exit 1 with a failing input; status, results, list', async () => {
    const lines = Array.from({ length: 50 }, (_, i) =>
      i === 17 ? { kind: 'fail', message: 'no good 17' } : { kind: 'sleep', ms: 250, i },
    );
    const { file } = inputFile(lines);
    const r = await sluice(
      'batch',
      'start',
      file,
      '--endpoint',
      'cli-batch',
      '--id',
      'cli-50',
      '--concurrency',
      '8',
      '--max-attempts',
      '1',
      '--interval',
      '0.5',
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toContain('started batch/cli-50 on endpoint');
    const progress = r.stdout.split('\n').filter((l) => /^ {2}\d\d:\d\d:\d\d {2}\d+\/\d+\+? done/.test(l));
    expect(progress.length, r.stdout).toBeGreaterThanOrEqual(2);
    expect(progress.at(-1)).toMatch(
      /50\/50 done \(100%\) {2}1 failed {2}0 in flight {2}[\d.]+\/s {2}ETA \S+ {2}\$[\d.]+/,
    );
    expect(r.stdout).not.toContain('\u001b['); // no bar, no cursor codes off a terminal
    expect(r.stdout).toMatch(/^outcomes\s+COMPLETED 49 {2}FAILED 1$/m);
    expect(r.stdout).toMatch(/^last errors #17: .*no good 17/m);
    // --out defaults to <data dir>/batches/<id>, absolute.
    const outDir = join(cwd, '.data', 'batches', 'cli-50');
    expect(r.stdout).toMatch(new RegExp(`^output\\s+${outDir}$`, 'm'));
    expect(readJsonl(join(outDir, 'results.jsonl'))).toHaveLength(50);

    await eventually(
      async () => expect((await batch.list()).map((b) => b.workflowId)).toContain('batch/cli-50'),
      15_000,
      300,
    );
    // On a terminal (a pty from `script`): the progress bar, then the table; the exit code is the batch's.
    const ttyP = new Promise<{ code: number; out: string }>((resolve) => {
      execFile(
        'script',
        ['-qec', `${process.execPath} ${bin} batch watch cli-50`, '/dev/null'],
        { env, cwd, timeout: 30_000 },
        (err, stdout) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout });
        },
      );
    });
    const [st, res, failed, listed] = await Promise.all([
      sluice('batch', 'status', 'cli-50', '--json'),
      sluice('batch', 'results', 'batch/cli-50', '--json'),
      sluice('batch', 'results', 'cli-50', '--failed'),
      sluice('batch', 'list', '--json'),
    ]);
    expect(st.code).toBe(1);
    expect(json(st.stdout)).toMatchObject({
      workflowId: 'batch/cli-50',
      workflowStatus: 'COMPLETED',
      state: { phase: 'done', counts: { total: 50, done: 50, byStatus: { COMPLETED: 49, FAILED: 1 } }, outDir },
    });
    expect(res.code).toBe(1);
    const out = res.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { index: number; status: string });
    expect(out.map((l) => l.index).sort((a, b) => a - b)).toEqual(lines.map((_, i) => i));
    expect(
      failed.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as object),
    ).toEqual([expect.objectContaining({ index: 17, status: 'FAILED', error: expect.stringMatching(/no good 17/) })]);

    expect(listed.code).toBe(0);
    expect(
      (JSON.parse(listed.stdout) as object[]).find((b) => (b as { workflowId: string }).workflowId === 'batch/cli-50'),
    ).toMatchObject({ status: 'COMPLETED', batchId: 'cli-50' });

    const tty = await ttyP;
    expect(tty.code, tty.out).toBe(1);
    expect(tty.out).toMatch(
      /[\u2588\u2591]{30} 50\/50 done \| 1 failed \| 0 in flight \| [\d.]+\/s \| ETA \S+ \| \$[\d.]+/,
    );
    expect(tty.out).toMatch(/outcomes\s+COMPLETED 49 {2}FAILED 1/);
  });

  it('start shows the batch live; meanwhile status and results exit 4, pause and resume; Ctrl-C exits 130 and the batch goes on; cancel exits 0, then 3 and 1', async () => {
    // 60 jobs of 3 s two at a time: far more work than the steps below take even on a loaded machine,
    // so the cancel at the end always finds inputs not yet submitted.
    const { file } = inputFile(Array.from({ length: 60 }, () => ({ kind: 'sleep', ms: 3000 })));
    const watching = startSluice(
      ['batch', 'start', file, '--endpoint', ep, '--id', 'cli-long', '--concurrency', '2', '--interval', '0.5'],
      env,
      cwd,
    );
    try {
      await watching.waitFor(/0\/60\+? done.* 2 in flight/, 30_000);
      const [running, partial] = await Promise.all([
        sluice('batch', 'status', 'cli-long'),
        sluice('batch', 'results', 'cli-long'),
      ]);
      expect(running.code).toBe(4);
      expect(running.stdout).toMatch(/^in progress\s+read \d+ {2}submitted \d+ {2}in flight [0-2] /m);
      expect(partial.code).toBe(4);
      expect(partial.stderr).toMatch(/still running: these are the outcomes so far/);

      // pause answers once the jobs in flight (3 s each) have finished; nothing new is submitted meanwhile.
      const paused = await sluice('batch', 'pause', 'cli-long', '--json');
      expect(paused.code, paused.stderr).toBe(0);
      expect(JSON.parse(paused.stdout)).toMatchObject({ phase: 'paused', waiting: expect.arrayContaining(['paused']) });
      await watching.waitFor(/ in flight .* {2}paused {2}waiting: paused$/m, 10_000);
      const resumed = await sluice('batch', 'resume', 'cli-long');
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toMatch(/batch\/cli-long: resumed/);

      watching.child.kill('SIGINT');
      const code = await new Promise<number | null>((r) =>
        watching.child.exitCode !== null ? r(watching.child.exitCode) : watching.child.once('exit', (c) => r(c)),
      );
      expect(code, watching.output).toBe(130);
      expect(watching.output).toContain('the batch keeps running. Re-attach: sluice batch watch batch/cli-long');
    } finally {
      await watching.stop();
    }
    expect((await batch.view('cli-long')).workflowStatus).toBe('RUNNING');

    const cancelled = await sluice('batch', 'cancel', 'cli-long');
    expect(cancelled.code, cancelled.stderr + cancelled.stdout).toBe(0);
    expect(cancelled.stdout).toMatch(/batch\/cli-long: CANCELLED/);
    const [after, again, pauseEnded] = await Promise.all([
      sluice('batch', 'status', 'cli-long', '--json'),
      sluice('batch', 'cancel', 'cli-long'),
      sluice('batch', 'pause', 'cli-long'),
    ]);
    expect(after.code).toBe(3);
    const final = json<{
      workflowStatus: string;
      state: { counts: { done: number; byStatus: Record<string, number> } };
    }>(after.stdout);
    expect(final).toMatchObject({ workflowStatus: 'CANCELLED', state: { counts: { done: 60 } } });
    expect(final.state.counts.byStatus.NOT_SUBMITTED).toBeGreaterThan(0);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already ended CANCELLED; nothing to cancel/);
    expect(pauseEnded.code).toBe(1);
  });

  it('--detach prints the id and exits 0; bad input: a clear message and exit 2, before anything starts', async () => {
    const { file } = inputFile([{ kind: 'echo' }]);
    const spawned = await Promise.all([
      sluice('batch', 'start', join(cwd, 'missing.jsonl'), '--endpoint', ep),
      sluice('batch', 'start', file, '--endpoint', 'nope', '--id', 'cli-nope'),
      sluice('batch', 'status', 'cli-nope'),
      sluice('batch', 'start', file, '--endpoint', 'cli-batch', '--id', 'cli-detach', '--detach', '--json'),
    ]);
    const detached = spawned.pop()!;
    expect(detached.code, detached.stderr).toBe(0);
    expect(JSON.parse(detached.stdout)).toEqual({
      workflowId: 'batch/cli-detach',
      endpointId: ep,
      outDir: join(cwd, '.data', 'batches', 'cli-detach'),
    });
    const messages = [
      /cannot read input file .*missing\.jsonl: no such file/,
      /endpoint nope not found; the endpoints that exist: .*cli-batch \(/,
      /no batch batch\/cli-nope/,
    ];
    spawned.forEach((r, i) => {
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(messages[i]!);
    });
    expect(existsSync(join(cwd, '.data', 'batches', 'cli-nope'))).toBe(false);
    const cases: [string[], RegExp][] = [
      [
        ['batch', 'start', file, '--endpoint', ep, '--deadline', 'next week'],
        /--deadline <iso>' argument 'next week' is invalid. must be an ISO 8601 time/,
      ],
      [
        ['batch', 'start', file, '--endpoint', ep, '--deadline', '2001-01-01T00:00:00Z'],
        /--deadline <iso>' argument .* is invalid. is in the past/,
      ],
      [['batch', 'start', file, '--endpoint', ep, '--key-limit', '3'], /--key-limit needs --key PATH/],
      [['batch', 'start', file, '--endpoint', ep, '--key', 'tenant'], /--key: keyPath must look like/],
      [['batch', 'start', file], /--endpoint ID\|NAME is required/],
      [['batch', 'start', file, '--endpoint', ep, '--priority', '12'], /must be an integer from 0 to 9/],
      [['batch', 'start', file, '--endpoint', ep, '--max-cost', 'lots'], /must be a positive number of USD/],
      [
        ['batch', 'start', file, '--endpoint', ep, '--input-format', 'csv'],
        /argument 'csv' is invalid. Allowed choices are auto, body, bare/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await inProcess(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
  });

  it('starts with the light client by default, with the full one when a payload key file needs its codec', async () => {
    const { file, dir } = inputFile([{ kind: 'echo' }]);
    const keys = join(dir, 'keys.json');
    writeFileSync(keys, JSON.stringify({ current: 'k1', keys: { k1: randomBytes(32).toString('base64') } }), {
      mode: 0o600,
    });
    const encodingOf = async (workflowId: string) => {
      const [started] = (await s.env.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const metadata = started?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.metadata ?? {};
      return Buffer.from(metadata.encoding ?? []).toString();
    };
    const plain = await sluice('batch', 'start', file, '--endpoint', ep, '--id', 'cli-plain', '--detach');
    expect(plain.code, plain.stderr).toBe(0);
    expect(await encodingOf('batch/cli-plain')).toBe('json/plain');
    const sealed = await runSluice(['batch', 'start', file, '--endpoint', ep, '--id', 'cli-sealed', '--detach'], {
      env: { ...env, SLUICE_PAYLOAD_KEY_FILE: keys },
      cwd,
    });
    expect(sealed.code, sealed.stderr).toBe(0);
    expect(await encodingOf('batch/cli-sealed')).toBe('binary/encrypted');
    // This stack's daemon has no key to open it.
    await s.env.client.workflow.getHandle('batch/cli-sealed').terminate('no key here');
  });

  it('every batch command has --help with its options, an example, --json and the exit codes', async () => {
    const group = (await buildProgram({ code: 0 })).commands.find((c) => c.name() === 'batch')!;
    const help = (name: string): string => {
      let out = '';
      const c = group.commands.find((x) => x.name() === name)!.configureOutput({ writeOut: (t) => (out += t) });
      c.outputHelp();
      return out;
    };
    for (const c of ['start', 'status', 'watch', 'pause', 'resume', 'cancel', 'rerun', 'results', 'list']) {
      const h = help(c);
      expect(h, c).toMatch(new RegExp(`^Usage: sluice batch ${c} `));
      expect(h, c).toMatch(/Examples?:\n {2}sluice batch /);
      expect(h, c).toContain('--json');
      expect(h, c).toMatch(/Exit code/);
    }
    expect(help('start')).toMatch(
      /--concurrency <n>\s+jobs in flight at most \(default: 50\)[\s\S]*4 still running[\s\S]*--detach` exits 0[\s\S]*130/,
    );
    // One word per mode: --per-job is shown; its former name is accepted (hidden), not shown.
    expect(help('start')).toMatch(/--per-job\s+the per-job mode/);
    expect(help('start')).not.toContain('--per-job-workflows');
  });
});
