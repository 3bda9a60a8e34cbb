/** bench/faults' rows: issue 19's table of faults (seeded, the same seeds every run), each with the goal its time is held to. */

/** The seed of every row's draws. */
export const SEED = 19;

/** How many 429s the 429 row aims at (the fault mode draws a rate: see {@link rateFor429s}). */
export const TARGET_429S = 20;

/** One measured row: the platform's `--faults` spec (without the seed), and what else is done to the stack. */
export interface FaultRow {
  key: string;
  title: string;
  /** `--faults` parts; `429=COUNT` is replaced by the rate giving about {@link TARGET_429S} 429s. */
  spec: string;
  /** The daemon's public URL is a closed port: every webhook lost. */
  unreachable?: boolean;
  /** The daemon, then the platform, SIGKILLed mid-run and restarted. */
  kills?: boolean;
  /** Time at most this many times the fault-free time. */
  goal: number;
}

const HTTP_ALL = '502=0.05,reset-before=0.03,reset-after=0.05,delay=0.05:1000-4000';
const WEBHOOK_ALL = 'webhook-lost=0.08,webhook-duplicate=0.08,webhook-delay=0.08:500-3000,webhook-reset=0.04';

export const ROWS: FaultRow[] = [
  {
    key: '429',
    title: `${TARGET_429S} of the answers are 429 (Retry-After 1), at random`,
    spec: '429=COUNT',
    goal: 1.3,
  },
  {
    key: 'no-webhooks',
    title: 'every webhook lost (public URL unreachable)',
    spec: '',
    unreachable: true,
    goal: 1.25,
  },
  { key: 'webhook-lost', title: "8 % of jobs' webhooks lost", spec: 'webhook-lost=0.08', goal: 1.3 },
  { key: 'delay', title: '4 % of calls answered 1 to 4 s late', spec: 'delay=0.04:1000-4000', goal: 1.3 },
  { key: '502-reset', title: '502s and resets before the answer', spec: '502=0.05,reset-before=0.03', goal: 1.3 },
  { key: 'reset-after', title: 'resets after the service answered', spec: 'reset-after=0.05', goal: 1.3 },
  {
    key: 'webhook-mix',
    title: 'webhooks duplicated, delayed, reset after delivery',
    spec: 'webhook-duplicate=0.08,webhook-delay=0.08:500-3000,webhook-reset=0.04',
    goal: 1.3,
  },
  { key: 'all', title: 'all faults together', spec: `429=COUNT,${HTTP_ALL},${WEBHOOK_ALL}`, goal: 2 },
  { key: 'kills', title: 'no fault, daemon and platform SIGKILLed', spec: '', kills: true, goal: 2 },
  {
    key: 'all-kills',
    title: 'all faults together, daemon and platform SIGKILLed',
    spec: `429=COUNT,${HTTP_ALL},${WEBHOOK_ALL}`,
    kills: true,
    goal: 2,
  },
];

/**
 * The fault mode has rates, not counts: the 429 rate giving about `TARGET_429S` 429s is that count
 * over the queue calls the fault-free run of the same inputs made (measured in the same run).
 */
export function rateFor429s(faultFreeCalls: number): number {
  return +Math.min(0.5, TARGET_429S / Math.max(1, faultFreeCalls)).toFixed(4);
}

/** The full `--faults` spec of a row ('' when the row has no platform fault). */
export function specOf(row: FaultRow, faultFreeCalls: number): string {
  if (!row.spec) return '';
  return `seed=${SEED},${row.spec.replace('429=COUNT', `429=${rateFor429s(faultFreeCalls)}`)}`;
}
