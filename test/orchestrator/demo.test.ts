/** `npm start` (sluice demo): the example jobs and batch through the embedded stack, then a clean stop when every process gets SIGINT at once. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, freePort } from '../helpers/platform';
import { killGroup, liveGroupMembers, processesMentioning, signalEach } from '../helpers/processes';
import { cleanEnv, sluice } from '../cli/run-sluice';

const root = join(__dirname, '..', '..');

/** The process groups of the platform's worker pods (one `pid` file per pod). */
function podGroups(dataDir: string): number[] {
  const dir = join(dataDir, 'platform', 'pods');
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .map((id) => {
      try {
        return Number(readFileSync(join(dir, id, 'pid'), 'utf8'));
      } catch {
        return 0;
      }
    })
    .filter((g) => g > 1);
}

/** What is left running of a stack: processes naming its data dir, members of its group and of its pods' groups. */
const leftovers = (dataDir: string, pgid: number): number[] => [
  ...processesMentioning(dataDir),
  ...liveGroupMembers(pgid),
  ...podGroups(dataDir).flatMap(liveGroupMembers),
];

describe('the main job: `npm start` (sluice demo)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sluice-demo-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(
    'runs the example jobs and a batch through the embedded stack, and stops cleanly when every process gets SIGINT at once',
    { timeout: 300_000 },
    async () => {
      const [port, temporalPort, daemonPort] = [await freePort(), await freePort(), await freePort()];
      const env = cleanEnv({ SLUICE_TEMPORAL_METRICS_PORT: '0' });
      // Its own process group, as a terminal runs a foreground job: npm, its shell, sluice (the Temporal server has its own group).
      const npm = spawn(
        'npm',
        [
          'start',
          '--',
          '--data-dir',
          dataDir,
          '--port',
          String(port),
          '--temporal-port',
          String(temporalPort),
          '--daemon-port',
          String(daemonPort),
        ],
        {
          cwd: root,
          env,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      const pgid = npm.pid!;
      let out = '';
      let err = '';
      npm.stdout.on('data', (d: Buffer) => (out += d.toString()));
      npm.stderr.on('data', (d: Buffer) => (err += d.toString()));
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
        npm.once('exit', (code, signal) => r({ code, signal })),
      );
      try {
        await eventually(
          () => /behaved as expected|did not behave as expected/.test(out) || npm.exitCode !== null,
          200_000,
          250,
        );
        expect(out, out + err).toContain('all demo jobs and the batch behaved as expected');
        expect(out).toContain(`Temporal UI     http://127.0.0.1:${temporalPort + 1000}`);
        expect(out).toMatch(/=> COMPLETED after 1 attempt\(s\) \[submit:COMPLETED\]/);
        expect(out).toMatch(/chunk \{"index":7,"text":"chunk 7"\}/);
        // Every chunk line comes before the stream job's final phase line.
        const stream = out.slice(out.indexOf('stream (8 chunks)'), out.indexOf('flaky ('));
        expect(stream).toMatch(/done: COMPLETED/);
        expect(stream.slice(stream.search(/done: COMPLETED/))).not.toMatch(/chunk \{/);
        expect(out).toMatch(/=> COMPLETED after 3 attempt\(s\) \[submit:FAILED, retry:FAILED, retry:COMPLETED\]/);
        expect(out).toMatch(/=> CANCELLED/);
        // The batch: 300 inputs, a progress line while it runs (not a terminal here), its results path.
        expect(out).toMatch(/batch of 300 inputs .*: batch\/demo-\d+/);
        expect(out).toMatch(/\d+\/300 done/);
        // Spend priced at the seeded endpoint's worker costPerHr (its workers start with the batch).
        expect(out).toMatch(/spend +\$\d+\.\d+ at \$\d+(\.\d+)?\/h/);
        expect(out).toMatch(/batch results: .*batches\/demo-\d+\/results\.jsonl/);
        expect(out).toContain('the stack keeps running');

        // Work in flight at the stop: a batch's steps heartbeat and its jobs run on worker pods.
        const inputs = join(dataDir, 'sleep.jsonl');
        writeFileSync(inputs, '{"ms":60000}\n'.repeat(4));
        const started = await sluice(
          ['batch', 'start', inputs, '--endpoint', 'sleep', '--concurrency', '4', '--detach', '--data-dir', dataDir],
          { env },
        );
        expect(started.code, started.stdout + started.stderr).toBe(0);
        const batchId = started.stdout.trim();
        await eventually(
          async () => {
            const s = await sluice(['batch', 'status', batchId, '--json', '--data-dir', dataDir], { env });
            return (JSON.parse(s.stdout) as { state?: { counts: { inFlight: number } } }).state?.counts.inFlight === 4;
          },
          60_000,
          500,
        );

        // SIGINT to every process at once, as `pkill -INT -f <data dir>` and a terminal's Ctrl-C (the group) do together:
        // the Temporal dev server gets it too and may be gone before the daemon has stopped.
        const before = out.length;
        // Once each (a second SIGINT is a forced stop, on purpose).
        const everyone = [...new Set([...liveGroupMembers(pgid), ...processesMentioning(dataDir)])];
        expect(everyone.length).toBeGreaterThanOrEqual(4); // npm, sluice, the server's supervisor and the server, ...
        signalEach(everyone, 'SIGINT');
        const end = await Promise.race([exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 90_000))]);
        expect(end, out.slice(before) + err).toEqual({ code: 0, signal: null });
        // Nothing alarming: no line on stderr but npm's own notices, no warning or error logged, no connection refused.
        const stderrLines = err.split('\n').filter((l) => l.trim() !== '' && !/^npm (warn|notice)/.test(l));
        expect(stderrLines, err).toEqual([]);
        const after = out.slice(before);
        expect(after).not.toMatch(/"level":(4|5|6)\d/);
        expect(after + err).not.toMatch(/connection refused|ECONNREFUSED|UNAVAILABLE|Error:/i);
        await eventually(() => leftovers(dataDir, pgid).length === 0, 10_000, 200).catch(() => undefined);
        expect(leftovers(dataDir, pgid)).toEqual([]);
      } finally {
        killGroup(pgid);
        signalEach(processesMentioning(dataDir), 'SIGKILL');
        podGroups(dataDir).forEach(killGroup);
      }
    },
  );
});
