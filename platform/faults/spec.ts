/**
 * The compact spec of `--faults`: comma-separated `name=value` parts, e.g.
 * `seed=7,429=0.05,502=0.05,reset-before=0.03,reset-after=0.05,delay=0.05:1000-4000,webhook-lost=0.08`.
 */
import { FaultSpecError } from './errors';
import { FAULT_APIS, parseFaults, type FaultApi, type Faults, type FaultsInput } from './options';

type Field = Exclude<keyof FaultsInput, 'seed' | 'apis' | 'retryAfterSeconds' | 'delayMs' | 'webhookDelayMs'>;

/** Spec names of the rates, and the range field a `rate:min-max` value sets. */
const RATES: Record<string, { field: Field; range?: 'delayMs' | 'webhookDelayMs' }> = {
  '429': { field: 'rateLimited' },
  '502': { field: 'badGateway' },
  'reset-before': { field: 'resetBefore' },
  'reset-after': { field: 'resetAfter' },
  delay: { field: 'delay', range: 'delayMs' },
  'webhook-lost': { field: 'webhookLost' },
  'webhook-duplicate': { field: 'webhookDuplicate' },
  'webhook-delay': { field: 'webhookDelay', range: 'webhookDelayMs' },
  'webhook-reset': { field: 'webhookReset' },
};

/** Every name a spec may use, for the error of an unknown one. */
export const FAULT_SPEC_NAMES = ['seed', 'apis', 'retry-after', ...Object.keys(RATES)];

/** Reads a `--faults` spec; a {@link FaultSpecError} names the part it could not read. */
export function parseFaultSpec(spec: string): Faults {
  const input: FaultsInput = {};
  const parts = spec.split(',').map((p) => p.trim());
  if (parts.every((p) => p === '')) throw new FaultSpecError('the fault spec is empty', spec);
  for (const part of parts) {
    const bad = (why: string): FaultSpecError => new FaultSpecError(`bad fault spec part "${part}": ${why}`, part);
    const eq = part.indexOf('=');
    if (eq <= 0) throw bad('expected name=value');
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name === 'seed') input.seed = integer(value, bad);
    else if (name === 'retry-after') input.retryAfterSeconds = integer(value, bad);
    else if (name === 'apis') input.apis = apis(value, bad);
    else if (RATES[name]) setRate(input, RATES[name], value, bad);
    else throw bad(`unknown fault "${name}" (known: ${FAULT_SPEC_NAMES.join(', ')})`);
  }
  try {
    return parseFaults(input);
  } catch (err) {
    throw new FaultSpecError(`bad fault spec "${spec}": ${(err as Error).message.replace(/^faults: /, '')}`, spec);
  }
}

type Bad = (why: string) => FaultSpecError;

function setRate(input: FaultsInput, r: (typeof RATES)[string], value: string, bad: Bad): void {
  const [rateText, rangeText, ...rest] = value.split(':');
  if (rest.length > 0 || (rangeText !== undefined && !r.range)) throw bad('expected a rate from 0 to 1');
  const n = Number(rateText);
  if (rateText === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw bad(`the rate must be a number from 0 to 1${r.range ? ', optionally :MIN-MAX ms' : ''}`);
  input[r.field] = n;
  if (rangeText !== undefined && r.range) {
    const m = /^(\d+)-(\d+)$/.exec(rangeText);
    if (!m || Number(m[1]) > Number(m[2])) throw bad('the delay range must be MIN-MAX ms with MIN <= MAX');
    input[r.range] = [Number(m[1]), Number(m[2])];
  }
}

function integer(value: string, bad: Bad): number {
  if (!/^\d+$/.test(value)) throw bad('expected a non-negative integer');
  return Number(value);
}

function apis(value: string, bad: Bad): FaultApi[] {
  const list = value.split('+');
  for (const a of list)
    if (!(FAULT_APIS as readonly string[]).includes(a))
      throw bad(`unknown API "${a}" (known: ${FAULT_APIS.join(', ')})`);
  return list as FaultApi[];
}
