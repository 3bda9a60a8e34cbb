/**
 * Where each input's context lives: one file per pipeline round (`contexts/<seq>.json`) holding the
 * contexts the round changed, and the table of every input in flight after it (which round's file
 * holds its context now). A round reads the table of the round before it and writes its own once,
 * so an input costs no store call of its own; a round done again reads the same table and contexts.
 * Files no input's context is in any more are deleted by the next step. Runs from before the round
 * files kept one file per input (`context/<index>.json`): still read for the inputs no table names.
 */
import { pipelineKeys, runKey } from '../../contracts/names';
import { type RunScope } from '../../contracts';
import { allKeys, type ObjectStore } from '../../results/store/object-store';
import { type InputContext } from './types';

/** The inputs in flight after round `seq`: input index -> the round whose file holds its context. */
export interface ContextTable {
  seq: number;
  /** The round file this table is kept in (absent: none yet, the run's start). */
  file?: number;
  where: ReadonlyMap<number, number>;
  /** Round files written and not yet deleted. */
  files: readonly number[];
}

/** A round file as stored. */
interface RoundFile {
  v: 1;
  /** Round files that exist, this one included. */
  files: number[];
  /** Round seq -> the inputs whose context is in its file. */
  at: Record<string, number[]>;
  c: InputContext[];
}

/** What a process keeps of a store's round files, so that a step reads none it wrote or read before. */
interface Kept {
  /** Each run's latest table (a step's first round finds its previous one here). */
  tables: Map<string, ContextTable>;
  /** Round files' contexts not yet taken by a later round, by key. */
  files: Map<string, Map<number, InputContext>>;
}
const kept = new WeakMap<ObjectStore, Kept>();
const keptOf = (store: ObjectStore): Kept => {
  let k = kept.get(store);
  if (!k) kept.set(store, (k = { tables: new Map(), files: new Map() }));
  return k;
};
const MAX_RUNS = 100;
const MAX_FILES = 1000;

const fileSeq = (key: string): number => Number(/(\d+)\.json$/.exec(key)?.[1] ?? NaN);

function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}

function tableOf(seq: number, file: number, f: RoundFile): ContextTable {
  const where = new Map<number, number>();
  for (const [s, idx] of Object.entries(f.at)) for (const i of idx) where.set(i, Number(s));
  return { seq, file, where, files: f.files };
}

/** The table after round `seq - 1`: this process's, else the newest round file up to it (none: empty). */
export async function tableBefore(store: ObjectStore, run: RunScope, seq: number): Promise<ContextTable> {
  const cached = keptOf(store).tables.get(runKey(run));
  if (cached?.seq === seq - 1) return cached;
  const keys = await allKeys(store, pipelineKeys.roundContextsPrefix(run));
  const older = keys.map(fileSeq).filter((s) => s < seq);
  if (older.length === 0) return { seq: seq - 1, where: new Map(), files: [] };
  const file = Math.max(...older);
  return tableOf(seq - 1, file, (await store.get(pipelineKeys.roundContexts(run, file))) as RoundFile);
}

/** A context as stored, copied so that a round changes its own (the cached one may be read again). */
const copy = (c: InputContext): InputContext => ({
  ...c,
  s: Object.fromEntries(Object.entries(c.s).map(([k, v]) => [k, Array.isArray(v) ? [...v] : v])),
});

/** Input `i`'s context as the table says (a run from before the round files: its own file); undefined when none. */
export async function loadContext(
  store: ObjectStore,
  run: RunScope,
  table: ContextTable,
  i: number,
): Promise<InputContext | undefined> {
  const s = table.where.get(i);
  if (s === undefined) return (await store.find(pipelineKeys.context(run, i))) as InputContext | undefined;
  const key = pipelineKeys.roundContexts(run, s);
  const { files } = keptOf(store);
  let got = files.get(key);
  if (!got?.has(i)) {
    const f = (await store.get(key)) as RoundFile;
    got = new Map(f.c.map((c) => [c.index, c]));
    remember(files, key, got, MAX_FILES);
  }
  const c = got.get(i);
  got.delete(i); // taken: a later round's file holds it from now on (a round done again reads the file)
  return c && copy(c);
}

/**
 * Writes round `seq`'s file when it changed a context or ended an input of the table: the contexts
 * `changed`, and the table without `ended`. Returns the table after the round.
 */
export async function writeRoundContexts(
  store: ObjectStore,
  run: RunScope,
  seq: number,
  before: ContextTable,
  changed: InputContext[],
  ended: number[],
): Promise<ContextTable> {
  const gone = ended.filter((i) => before.where.has(i));
  if (changed.length === 0 && gone.length === 0) return keep(store, run, { ...before, seq });
  const where = new Map(before.where);
  for (const i of gone) where.delete(i);
  for (const c of changed) where.set(c.index, seq);
  const at: Record<string, number[]> = {};
  for (const [i, s] of where) (at[s] ??= []).push(i);
  const fileList = [...before.files.filter((f) => f < seq), seq];
  const key = pipelineKeys.roundContexts(run, seq);
  await store.put(key, { v: 1, files: fileList, at, c: changed } satisfies RoundFile);
  remember(keptOf(store).files, key, new Map(changed.map((c) => [c.index, c])), MAX_FILES);
  return keep(store, run, { seq, file: seq, where, files: fileList });
}

const keep = (store: ObjectStore, run: RunScope, t: ContextTable): ContextTable => {
  remember(keptOf(store).tables, runKey(run), t, MAX_RUNS);
  return t;
};

/**
 * Deletes the round files before `seq` that hold no context of an input in flight after round
 * `seq - 1` (nor that round's table). Done at a step's start, never by a round: a step retried runs
 * its rounds again from the table before its first, and reads every file that table names.
 */
export async function forgetRoundFiles(store: ObjectStore, run: RunScope, seq: number): Promise<void> {
  const t = await tableBefore(store, run, seq);
  const used = new Set(t.where.values());
  if (t.file !== undefined) used.add(t.file);
  const old = t.files.filter((f) => f < seq && !used.has(f));
  if (old.length === 0) return;
  await Promise.all(old.map((f) => store.delete(pipelineKeys.roundContexts(run, f))));
  for (const f of old) keptOf(store).files.delete(pipelineKeys.roundContexts(run, f));
  keep(store, run, { ...t, files: t.files.filter((f) => !old.includes(f)) });
}

/** Deletes every context file of a run (its finish: no input is in flight), the per-input ones of older runs too. */
export async function forgetAllContexts(store: ObjectStore, run: RunScope): Promise<void> {
  for (const prefix of [pipelineKeys.roundContextsPrefix(run), pipelineKeys.contextPrefix(run)]) {
    const keys = await allKeys(store, prefix);
    for (let i = 0; i < keys.length; i += 32) await Promise.all(keys.slice(i, i + 32).map((k) => store.delete(k)));
    for (const k of keys) keptOf(store).files.delete(k);
  }
  keptOf(store).tables.delete(runKey(run));
}
