/** What each `sluice scaler schedule add|list|pause|resume|delete` command does: scheduled scale up/down of an endpoint, as Temporal Schedules (schedule-commands.ts registers them). */
import type { CliContext } from '../context';

/** What the schedule commands connect with. */
type ScheduleCli = CliContext<'scaler' | 'service'>;
import { UsageError } from '../errors';
import { EXIT_CODES } from '../exit-codes';
import { schedulesTable, whenText } from './output';

/** Exit codes of the schedule commands, for their help. */
export const EXIT_HELP =
  'Exit code: 0 done; 1 the command failed; 2 usage (bad schedule: min above max, bad time, cron or time zone; unknown endpoint; no such schedule; one of that name exists).';

export interface Flags {
  json?: boolean;
  dataDir: string;
  all?: boolean;
}
export interface AddFlags extends Flags {
  at?: string;
  cron?: string;
  tz?: string;
  days?: string;
  min?: number;
  max?: number;
  until?: number;
  for?: number;
  name?: string;
  paused?: boolean;
}

/** Connects, runs `fn`, maps the schedules' errors to usage errors (exit 2), closes on every path. */
async function withSchedules(o: Flags, fn: (cli: ScheduleCli) => Promise<number>): Promise<number> {
  // Loaded here: the schedule commands' definitions (schedule-commands.ts) read VERBS and EXIT_HELP.
  const [{ connectCli }, { ScalerScheduleError }] = await Promise.all([
    import('../context'),
    import('../../scaler-schedules'),
  ]);
  const cli = await connectCli(o.dataDir, ['scaler', 'service']);
  try {
    return await fn(cli);
  } catch (err) {
    if (err instanceof ScalerScheduleError) throw new UsageError(err.message);
    throw err;
  } finally {
    await cli.close();
  }
}

/** The endpoint's id; one that no longer exists is still found by its schedules. */
const endpointOf = async (cli: ScheduleCli, endpoint: string) =>
  (await import('../endpoint-arg')).endpointArg(
    cli,
    endpoint,
    async (id) => (await cli.scaler.schedules.list({ endpointId: id })).length > 0,
  );

export async function add(endpoint: string, o: AddFlags): Promise<number> {
  if (o.at === undefined && o.cron === undefined)
    throw new UsageError('give --at HH:MM (with --tz, --days) or --cron EXPR');
  if (o.min === undefined || o.max === undefined)
    throw new UsageError(
      'give --min N and --max N: the floor and ceiling (workersMin and workersMax when no scaler runs)',
    );
  return withSchedules(o, async (cli) => {
    const endpointId = await (await import('../endpoint-arg')).endpointArg(cli, endpoint);
    const v = await cli.scaler.schedules.add({
      endpointId,
      min: o.min!,
      max: o.max!,
      ...(o.name ? { name: o.name } : {}),
      ...(o.at !== undefined ? { at: o.at } : {}),
      ...(o.cron !== undefined ? { cron: o.cron } : {}),
      ...(o.days !== undefined ? { days: o.days } : {}),
      ...(o.tz !== undefined ? { timezone: o.tz } : {}),
      ...(o.until !== undefined ? { until: o.until } : {}),
      ...(o.for !== undefined ? { forMs: o.for } : {}),
      ...(o.paused ? { paused: true } : {}),
    });
    if (o.json) console.log(JSON.stringify(v));
    else
      console.log(
        `added ${v.scheduleId}: ${whenText(v)} (${v.timezone}) sets ${v.min}..${v.max}${v.paused ? ' (paused)' : ''}; next ${v.next.slice(0, 2).join(', ') || '-'}`,
      );
    return EXIT_CODES.ok;
  });
}

export async function list(endpoint: string | undefined, o: Flags): Promise<number> {
  return withSchedules(o, async (cli) => {
    const endpointId = endpoint === undefined ? undefined : await endpointOf(cli, endpoint);
    const views = await cli.scaler.schedules.list(endpointId === undefined ? {} : { endpointId });
    if (o.json) console.log(JSON.stringify(views));
    else console.log(views.length === 0 ? 'no scaler schedules' : schedulesTable(views).join('\n'));
    return EXIT_CODES.ok;
  });
}

interface VerbSpec {
  apply: (cli: ScheduleCli, endpointId: string, name: string) => Promise<unknown>;
  done: string;
  summary: string;
  json: string;
}
/** The commands that change schedules (pause, resume, delete): what each does to one, its past tense, its summary, its --json. */
export const VERBS = {
  pause: {
    apply: (cli, e, n) => cli.scaler.schedules.pause(e, n),
    done: 'paused',
    summary: 'stop a schedule from firing (the bounds stay as they are)',
    json: 'a JSON array of the schedules after the change',
  },
  resume: {
    apply: (cli, e, n) => cli.scaler.schedules.resume(e, n),
    done: 'resumed',
    summary: 'let a paused schedule fire again',
    json: 'a JSON array of the schedules after the change',
  },
  delete: {
    apply: async (cli, e, n) => {
      await cli.scaler.schedules.delete(e, n);
      return { endpointId: e, name: n, deleted: true };
    },
    done: 'deleted',
    summary: 'delete a schedule (the bounds it set stay)',
    json: 'a JSON array of what was deleted',
  },
} satisfies Record<string, VerbSpec>;
export type Verb = keyof typeof VERBS;

export const change =
  (what: Verb) =>
  async (endpoint: string, name: string | undefined, o: Flags): Promise<number> => {
    if (name !== undefined && o.all) throw new UsageError('give a schedule NAME or --all, not both');
    if (name === undefined && !o.all)
      throw new UsageError(
        "give the schedule's NAME (sluice scaler schedule list shows them), or --all for every schedule of the endpoint",
      );
    return withSchedules(o, async (cli) => {
      const endpointId = await endpointOf(cli, endpoint);
      const done: unknown[] = [];
      // NAME, or with --all every schedule of the endpoint.
      const names = name !== undefined ? [name] : (await cli.scaler.schedules.list({ endpointId })).map((v) => v.name);
      for (const n of names) {
        done.push(await VERBS[what].apply(cli, endpointId, n));
        if (!o.json) console.log(`${VERBS[what].done} schedule ${n} of endpoint ${endpointId}`);
      }
      if (o.json) console.log(JSON.stringify(done));
      else if (done.length === 0) console.log(`endpoint ${endpointId} has no scaler schedules`);
      return EXIT_CODES.ok;
    });
  };
