/** `sluice scaler` (and its former name `scale`, hidden) as a real process on a real stack: start, status, override, pause, resume, watch, stop, schedules, --json, exit codes, bad input. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScalerClient } from '../../client/scaler';
import { buildProgram, main } from '../../client/cli/main';
import { type ScalerState } from '../../contracts';
import { GraphqlClient } from '../../platform-api';
import { orchestratorStack } from '../helpers/orchestrator';
import { eventually } from '../helpers/platform';
import { boundsOf, sleepEndpoint, type Stack } from '../scaler/helpers';
import { stackEnv, sluice as runSluice, startSluice } from './run-sluice';

describe('sluice scaler', () => {
  let s: Stack;
  let env: NodeJS.ProcessEnv;
  let scalers: ScalerClient;
  let gql: GraphqlClient;
  beforeAll(async () => {
    s = await orchestratorStack();
    env = stackEnv(s);
    scalers = new ScalerClient({ client: s.env.client, resultsDir: s.resultsDir });
    gql = new GraphqlClient({ url: `${s.platform.url}/graphql`, apiKey: s.platform.apiKey });
  });
  afterAll(async () => {
    await gql?.close();
    await s?.dispose();
  });

  /** The real `sluice` process (bin/sluice.cjs). */
  const sluice = (...args: string[]) => runSluice(args, { env });
  /**
   * The same command run in this process with the same environment (no process start-up, which
   * is slow on a loaded machine): its exit code, stdout and stderr.
   */
  const run = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    for (const [k, v] of Object.entries(env))
      if (k.startsWith('SLUICE_') || k.startsWith('TEMPORAL_')) vi.stubEnv(k, v);
    const write = vi
      .spyOn(process.stderr, 'write')
      .mockImplementation((c: string | Uint8Array) => ((stderr += String(c)), true));
    const error = vi
      .spyOn(console, 'error')
      .mockImplementation((...a: unknown[]) => void (stderr += `${a.join(' ')}\n`));
    const log = vi.spyOn(console, 'log').mockImplementation((...a: unknown[]) => void (stdout += `${a.join(' ')}\n`));
    try {
      return { code: await main(args), stdout, stderr };
    } finally {
      write.mockRestore();
      error.mockRestore();
      log.mockRestore();
      vi.unstubAllEnvs();
    }
  };

  it('start by name, status as a table and as JSON, override and --clear, pause and resume, watch until Ctrl-C, stop restores the bounds; then 3 and 1', async () => {
    const ep = sleepEndpoint(s, 'cli-scale', { workersMin: 0, workersMax: 1 });
    const started = await sluice(
      'scaler',
      'start',
      'cli-scale',
      '--floor',
      '0',
      '--ceiling',
      '6',
      '--interval',
      '500ms',
      '--window',
      '4s',
      '--min-write-gap',
      '1s',
      '--json',
    );
    expect(started.code, started.stderr).toBe(0);
    expect(JSON.parse(started.stdout)).toMatchObject({
      workflowId: `scaler/${ep}`,
      endpointId: ep,
      config: { floor: 0, ceiling: 6, intervalMs: 500, stabilizationWindowMs: 4000, minWriteGapMs: 1000 },
    });
    await eventually(async () => (await scalers.status(ep)).ticks >= 2, 15_000, 100);

    const again = await run('scaler', 'start', ep);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/a scaler already runs for endpoint .*; see sluice scaler status/);

    const table = await sluice('scaler', 'status', 'cli-scale');
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/^workflow\s+RUNNING$/m);
    expect(table.stdout).toMatch(/^bounds\s+0\.\.1 {2}target 0 {2}\(found 0\.\.1: restored on stop\)$/m);
    expect(table.stdout).toMatch(/^load\s+0 queued {2}0 in progress {2}workers 0 busy/m);
    expect(table.stdout).toMatch(/^config\s+floor 0 {2}ceiling 6 {2}1\/worker {2}interval 500 ms {2}window 4s/m);
    expect(table.stdout).toMatch(/^ {2}TIME\s+TICK\s+KIND\s+BOUNDS\s+WRITE\s+REASON$/m);
    expect(table.stdout).toMatch(/^ {2}\d\d:\d\d:\d\d\s+-\s+start\s+0\.\.1\s+no\s+found 0\.\.1: restored on stop$/m);

    const pinned = await sluice('scaler', 'override', 'cli-scale', '--min', '2', '--max', '3', '--for', '10m');
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stdout).toMatch(/bounds pinned to 2\.\.3 until \S+Z; then the policy takes over/);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 2, workersMax: 3 });
    const st = JSON.parse((await run('scaler', 'status', ep, '--json')).stdout) as {
      workflowStatus: string;
      state: ScalerState;
    };
    expect(st.workflowStatus).toBe('RUNNING');
    expect(st.state.override).toMatchObject({ workersMin: 2, workersMax: 3 });
    expect(st.state.override!.until - Date.now()).toBeGreaterThan(9 * 60_000);
    expect(st.state.decisions.some((d) => d.kind === 'override' && d.write)).toBe(true);
    const cleared = await run('scaler', 'override', 'cli-scale', '--clear', '--json');
    expect(cleared.code).toBe(0);
    expect((JSON.parse(cleared.stdout) as ScalerState).override).toBeUndefined();

    const paused = await run('scaler', 'pause', 'cli-scale');
    expect(paused.code).toBe(0);
    expect(paused.stdout).toMatch(/: paused; the bounds stay/);
    expect((await scalers.status(ep)).phase).toBe('paused');
    const resumed = await run('scaler', 'resume', 'cli-scale', '--json');
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ phase: 'running' });

    const watching = startSluice(['scaler', 'watch', 'cli-scale', '--json', '--interval', '0.5'], env);
    try {
      await watching.waitFor(/"workflowStatus":"RUNNING"[\s\S]*\n[\s\S]*"workflowStatus":"RUNNING"/, 20_000);
      watching.child.kill('SIGINT');
      const code = await new Promise<number | null>((r) =>
        watching.child.exitCode !== null ? r(watching.child.exitCode) : watching.child.once('exit', (c) => r(c)),
      );
      expect(code, watching.output).toBe(130);
      expect(watching.output).toContain(`the scaler keeps running. Re-attach: sluice scaler watch ${ep}`);
    } finally {
      await watching.stop();
    }
    const line = await new Promise<string>((resolve) => {
      const w = startSluice(['scaler', 'watch', ep, '--interval', '0.2'], env);
      void w
        .waitFor(/^ {2}\d\d:\d\d:\d\d {2}running {2}bounds \d+\.\.\d+ {2}target \d+ {2}load 0q\+0p.*$/m, 20_000)
        .then(
          (m) => resolve(m[0]),
          (e: Error) => resolve(e.message),
        )
        .finally(() => void w.stop());
    });
    expect(line).toMatch(/last: \S+ \d+\.\.\d+/);
    expect((await scalers.view(ep)).workflowStatus).toBe('RUNNING');

    // Back to 0..1 by hand: stop restores what it found at start whatever it set since.
    await run('scaler', 'override', ep, '--min', '4', '--max', '5', '--for', '1m');
    const stopped = await sluice('scaler', 'stop', 'cli-scale');
    expect(stopped.code, stopped.stderr).toBe(0);
    expect(stopped.stdout).toMatch(/stopped; bounds restored to 0\.\.1/);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: 1 });
    // `scale`, the group's former name, is the same command (hidden from help).
    const after = await run('scale', 'status', 'cli-scale');
    expect(after.code).toBe(3);
    expect(after.stdout).toMatch(/^workflow\s+CANCELLED$/m);
    expect(after.stdout).toMatch(/restore\s+0\.\.1\s+yes\s+stopped: restoring 0\.\.1/);
    const pauseAfter = await run('scaler', 'pause', ep);
    const stopAfter = await run('scaler', 'stop', ep, '--json');
    expect(pauseAfter.code).toBe(1);
    expect(pauseAfter.stderr).toMatch(/already ended CANCELLED; it can no longer be paused/);
    expect(stopAfter.code).toBe(1);
    expect(JSON.parse(stopAfter.stdout)).toMatchObject({ workflowStatus: 'CANCELLED', done: false });
  });

  it("configure changes a running scaler live (none clears a setting; a floor above the ceiling is refused); status lists the endpoint's schedules", async () => {
    const ep = sleepEndpoint(s, 'cli-conf', { workersMin: 0, workersMax: 1 });
    const none = await run('scaler', 'configure', ep, '--ceiling', '4');
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^sluice: no scaler for endpoint \S+; start one: sluice scaler start/);
    await scalers.start(ep, { intervalMs: 500, ceiling: 6 });
    await eventually(async () => (await scalers.status(ep)).ticks >= 1, 15_000, 100);

    const changed = await sluice(
      'scaler',
      'configure',
      'cli-conf',
      '--ceiling',
      '8',
      '--max-spend-per-hour',
      '5',
      '--warm-hold',
      '0',
      '--window',
      '2m',
    );
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toMatch(/^scaler\/\S+: .*ceiling 6 -> 8/);
    expect(changed.stdout).toMatch(
      /maxSpendPerHour none -> 5.*warmHoldMs none -> 0|warmHoldMs none -> 0.*maxSpendPerHour none -> 5/,
    );
    expect(changed.stdout).toMatch(/stabilizationWindowMs 300000 -> 120000/);
    expect((await scalers.status(ep)).config).toMatchObject({
      ceiling: 8,
      maxSpendPerHour: 5,
      warmHoldMs: 0,
      stabilizationWindowMs: 120_000,
      floor: 0,
      intervalMs: 500,
    });
    const cleared = await run('scaler', 'configure', ep, '--max-spend-per-hour', 'none', '--json');
    expect(cleared.code, cleared.stderr).toBe(0);
    expect((JSON.parse(cleared.stdout) as ScalerState).config).not.toHaveProperty('maxSpendPerHour');
    expect((await scalers.status(ep)).config.maxSpendPerHour).toBeUndefined();

    const refused: [string[], RegExp][] = [
      [['--floor', '9'], /invalid scaler options: floor 9 must not exceed ceiling 8; nothing changed/],
      [[], /give at least one setting to change/],
      [['--ceiling', 'none'], /--ceiling <n>' argument 'none' is invalid/],
      [['--interval', '50ms'], /--interval: intervalMs must be at least 200 ms/],
    ];
    for (const [args, message] of refused) {
      const r = await run('scaler', 'configure', ep, ...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    expect((await scalers.status(ep)).config).toMatchObject({ floor: 0, ceiling: 8 });

    // The endpoint's schedules (paused: none fires here) in the status table and in --json.
    await scalers.schedules.add({
      endpointId: ep,
      at: '08:00',
      days: 'mon-fri',
      timezone: 'Europe/Berlin',
      min: 2,
      max: 6,
      paused: true,
    });
    const table = await eventually(
      async () => {
        const r = await run('scaler', 'status', 'cli-conf');
        return r.stdout.includes('0800-mon-fri') ? r : undefined;
      },
      20_000,
      500,
    );
    expect(table!.code).toBe(0);
    expect(table!.stdout).toMatch(/^config\s+floor 0 {2}ceiling 8 .*warm hold 0/m);
    expect(table!.stdout).toMatch(/^schedules {3}\(they set the floor and ceiling when they fire\)$/m);
    expect(table!.stdout).toMatch(/^ {2}SCHEDULE\s+NAME\s+WHEN\s+TZ\s+BOUNDS\s+STATE\s+NEXT\s+LAST$/m);
    expect(table!.stdout).toMatch(
      /^ {2}scale\/\S+\/0800-mon-fri\s+0800-mon-fri\s+at 08:00 mon-fri\s+Europe\/Berlin\s+2\.\.6\s+paused \(created paused\)/m,
    );
    const json = JSON.parse((await run('scaler', 'status', ep, '--json')).stdout) as {
      schedules: { name: string; min: number; max: number }[];
    };
    expect(json.schedules).toMatchObject([{ name: '0800-mon-fri', min: 2, max: 6 }]);
    await scalers.schedules.delete(ep, '0800-mon-fri');

    await scalers.stop(ep);
    const ended = await run('scaler', 'configure', ep, '--ceiling', '4');
    expect(ended.code).toBe(1);
    expect(ended.stderr).toMatch(/already ended CANCELLED; it can no longer be configured/);
  });

  it('schedules: add (a weekday calendar in a time zone), list, pause, resume, delete; one that fires sets the bounds when no scaler runs', async () => {
    const ep = sleepEndpoint(s, 'cli-sched', { workersMin: 0, workersMax: 1 });
    const added = await sluice(
      'scaler',
      'schedule',
      'add',
      'cli-sched',
      '--at',
      '08:00',
      '--tz',
      'Europe/Berlin',
      '--days',
      'mon-fri',
      '--min',
      '2',
      '--max',
      '10',
      '--json',
    );
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({
      scheduleId: `scale/${ep}/0800-mon-fri`,
      name: '0800-mon-fri',
      min: 2,
      max: 10,
      at: '08:00',
      days: 'mon-fri',
      timezone: 'Europe/Berlin',
      paused: false,
    });
    const fires = await run(
      'scaler',
      'schedule',
      'add',
      ep,
      '--cron',
      '@every 2s',
      '--min',
      '1',
      '--max',
      '2',
      '--name',
      'often',
    );
    expect(fires.code, fires.stderr).toBe(0);
    expect(fires.stdout).toMatch(/^added scale\/\S+\/often: cron @every 2s \(UTC\) sets 1\.\.2; next /);
    await eventually(async () => (await boundsOf(gql, ep)).workersMax === 2, 15_000, 100);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 1, workersMax: 2 });

    const listed = await eventually(
      async () => {
        const r = await run('scaler', 'schedule', 'list', 'cli-sched');
        return r.stdout.includes('often') && r.stdout.includes('0800-mon-fri') ? r : undefined;
      },
      20_000,
      500,
    );
    expect(listed!.code).toBe(0);
    expect(listed!.stdout).toMatch(/^SCHEDULE\s+ENDPOINT\s+NAME\s+WHEN\s+TZ\s+BOUNDS\s+STATE\s+NEXT\s+LAST$/m);
    expect(listed!.stdout).toMatch(
      /0800-mon-fri\s+at 08:00 mon-fri\s+Europe\/Berlin\s+2\.\.10\s+active\s+\S+T0[67]:00:00\.000Z\s+-$/m,
    );

    const paused = await run('scaler', 'schedule', 'pause', 'cli-sched', 'often', '--json');
    expect(paused.code, paused.stderr).toBe(0);
    expect(JSON.parse(paused.stdout)).toMatchObject([{ name: 'often', paused: true }]);
    const resumed = await run('scaler', 'schedule', 'resume', ep, 'often');
    expect(resumed.stdout).toMatch(/resumed schedule often/);
    const all = JSON.parse((await run('scaler', 'schedule', 'list', ep, '--json')).stdout) as {
      name: string;
      paused: boolean;
    }[];
    expect(all.map((v) => [v.name, v.paused])).toEqual([
      ['0800-mon-fri', false],
      ['often', false],
    ]);

    const deleted = await sluice('scaler', 'schedule', 'delete', 'cli-sched', '--all', '--json');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(JSON.parse(deleted.stdout)).toHaveLength(2);
    const gone = await run('scaler', 'schedule', 'pause', ep, 'often');
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/^sluice: no schedule often on endpoint /);
  });

  it('bad input: a clear message, exit 2, nothing started or created', async () => {
    const ep = sleepEndpoint(s, 'cli-bad', { workersMin: 0, workersMax: 1 });
    const inProc: [string[], RegExp][] = [
      [
        ['scaler', 'start', ep, '--floor', '5', '--ceiling', '2'],
        /invalid scaler options: --floor must not exceed --ceiling/,
      ],
      [
        ['scaler', 'start', ep, '--interval', '5x'],
        /option '--interval <duration>' argument '5x' is invalid. must be a duration like 500ms, 5s/,
      ],
      [['scaler', 'start', ep, '--interval', '100ms'], /--interval: intervalMs must be at least 200 ms/],
      [['scaler', 'start', ep, '--ceiling', '500'], /must be a whole number of workers from 0 to 100/],
      [
        ['scaler', 'start', ep, '--warm-hold', 'none'],
        /option '--warm-hold <duration>' argument 'none' is invalid. must be a duration/,
      ],
      [
        ['scaler', 'override', ep, '--min', '5', '--max', '2', '--for', '10m'],
        /invalid override: --min must not exceed --max/,
      ],
      [['scaler', 'override', ep, '--min', '1', '--max', '2'], /override needs --min N --max N --for DURATION/],
      [['scaler', 'override', ep, '--min', '1', '--max', '2', '--for', 'soon'], /must be a duration/],
      [['scaler', 'schedule', 'add', ep, '--min', '1', '--max', '2'], /give --at HH:MM .* or --cron EXPR/],
      [['scaler', 'schedule', 'delete', ep], /give the schedule's NAME .* or --all/],
      [
        [
          'scaler',
          'schedule',
          'add',
          ep,
          '--at',
          '08:00',
          '--min',
          '1',
          '--max',
          '2',
          '--until',
          '2001-01-01T00:00:00Z',
        ],
        /--until <iso>' argument .* is invalid. is in the past/,
      ],
    ];
    for (const [args, message] of inProc) {
      const r = await run(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
    const connected: [string[], RegExp][] = [
      [['scaler', 'start', 'nope'], /^sluice: endpoint nope not found; the endpoints that exist: .*cli-bad/],
      [
        ['scaler', 'status', 'cli-bad'],
        /^sluice: no scaler for endpoint cli-bad; start one: sluice scaler start cli-bad/,
      ],
      [['scaler', 'stop', 'cli-bad'], /no scaler for endpoint cli-bad/],
      [
        ['scaler', 'schedule', 'add', ep, '--at', '08:00', '--min', '5', '--max', '2'],
        /invalid schedule: min must not exceed max/,
      ],
      [
        ['scaler', 'schedule', 'add', ep, '--cron', 'every morning', '--min', '0', '--max', '2'],
        /invalid schedule: .*fields/i,
      ],
      [
        ['scaler', 'schedule', 'add', ep, '--at', '08:00', '--tz', 'Mars/Olympus', '--min', '0', '--max', '2'],
        /unknown time zone Mars\/Olympus/,
      ],
      [['scaler', 'schedule', 'add', ep, '--at', '8h', '--min', '0', '--max', '2'], /at must be a time of day HH:MM/],
      [['scaler', 'schedule', 'add', 'nope', '--at', '08:00', '--min', '0', '--max', '2'], /endpoint nope not found/],
      [['scaler', 'schedule', 'resume', ep, 'missing'], /no schedule missing on endpoint/],
    ];
    // The real process once (its exit code and message), the rest in this process.
    const real = await sluice(...connected[0]![0]);
    expect(real.code).toBe(2);
    expect(real.stderr).toMatch(connected[0]![1]);
    for (const [args, message] of connected) {
      const r = await run(...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr).not.toMatch(/at .*\.ts:\d+/);
    }
    expect(await scalers.exists(ep)).toBe(false);
    expect(await scalers.exists('nope')).toBe(false);
    expect(await scalers.schedules.list({ endpointId: ep })).toEqual([]);
    expect(await boundsOf(gql, ep)).toMatchObject({ workersMin: 0, workersMax: 1 });
  });

  it('every scaler command has --help with its options, an example, --json and the exit codes', async () => {
    const group = (await buildProgram({ code: 0 })).commands.find((c) => c.name() === 'scaler')!;
    const help = (path: string[]): string => {
      let out = '';
      let c = group;
      for (const p of path) c = c.commands.find((x) => x.name() === p)!;
      c.configureOutput({ writeOut: (t) => (out += t) }).outputHelp();
      return out;
    };
    const commands = [
      ['start'],
      ['configure'],
      ['status'],
      ['watch'],
      ['override'],
      ['pause'],
      ['resume'],
      ['stop'],
      ...['add', 'list', 'pause', 'resume', 'delete'].map((x) => ['schedule', x]),
    ];
    for (const c of commands) {
      const h = help(c);
      expect(h, c.join(' ')).toMatch(new RegExp(`^Usage: sluice scaler ${c.join(' ')} `));
      expect(h, c.join(' ')).toMatch(/Examples?:\n {2}sluice scaler /);
      expect(h, c.join(' ')).toContain('--json');
      expect(h, c.join(' ')).toMatch(/Exit code: 0 /);
    }
    expect(help(['start'])).toMatch(
      /--interval <duration>\s+time between \/health samples, e\.g\. 5s\s+\(default: 5s\)/,
    );
    expect(help(['watch'])).toMatch(/130: interrupted \(the scaler keeps running\)/);
    expect(help(['configure'])).toMatch(/--warm-hold <duration>[\s\S]*none clears it/);
    expect(help(['schedule', 'add'])).toMatch(
      /--tz <zone>[\s\S]*daylight[\s\S]*--days <days>|--days <days>[\s\S]*--tz <zone>/,
    );

    // The former name `scale` is registered hidden with the same subcommands; the program's help shows only `scaler`.
    const program = await buildProgram({ code: 0 });
    const alias = program.commands.find((c) => c.name() === 'scale')!;
    expect(alias.commands.map((c) => c.name())).toEqual(group.commands.map((c) => c.name()));
    let top = '';
    program.configureOutput({ writeOut: (t) => (top += t) }).outputHelp();
    expect(top).toMatch(/^ {2}scaler /m);
    expect(top).not.toMatch(/^ {2}scale /m);
  });
});
