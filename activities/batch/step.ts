/**
 * One step of a batch, in bulk: write the outcomes decided so far, submit new and deferred lines,
 * retry or resubmit due jobs, cancel, poll late jobs, then collect finished jobs. Idempotent:
 * submissions are journaled as they happen and the whole result is kept once the step is done.
 * runStep reads as the list of its steps; what it sends on the workflow's orders is step-orders.ts.
 */
import { batchKeys, runKey } from '../../contracts/names';
import { type WaitReason } from '../../contracts';
import { DEFAULT_PRIORITY } from '../../platform-api';
import { awaitFinished, awaitLast, collected, refill } from './collect';
import { attempt, beat } from '../heartbeat';
import { type InboxPosition, type InboxReader } from '../../results/batch/inbox';
import { SteadyPoll } from './steady-poll';
import { parseLine } from './input';
import { isFeedLocation } from '../../results/batch/feed';
import { openedInput, type BatchInput } from '../../results/batch/locations';
import { outcomeSegments } from './outcomes';
import { standing } from './priority-board';
import { cancelJobs, keepOf, readAndSubmit, sendRetries, type Step, type StepDeps } from './step-orders';
import { startPolls } from './step-polls';
import { Submitter, type Submitted } from './submitter';
import { StepSends } from './detached';
import { claimedJobs, reportSubmitting } from './submitting';
import { type JobRecord, type JobSubmission } from '../../contracts';
import { emptyStepResult, type LineRef, type StepRequest, type StepResult } from './types';

export type { StepDeps } from './step-orders';

/** How long a step that yields to a higher-priority batch waits for its own completions, ms. */
const YIELD_WAIT_MS = 2000;

export async function runStep(deps: StepDeps, req: StepRequest): Promise<StepResult> {
  const polls: { of?: SteadyPoll } = {};
  try {
    return await stepOnce(deps, req, polls);
  } catch (err) {
    // What its polls found is in no inbox: the batch's next step takes it (or only the workflow's fallback would find it).
    polls.of?.giveBack();
    throw err;
  }
}

async function stepOnce(deps: StepDeps, req: StepRequest, polls: { of?: SteadyPoll }): Promise<StepResult> {
  const { store } = deps;
  const done = batchKeys.stepResult(req.run, req.seq);
  const kept = (await store.find(done)) as Kept | undefined;
  if (kept) return withoutInbox(kept);
  // Webhooks of this batch received by any daemon, from where the last finished step stopped (a
  // batch that polls has none to read).
  const received = deps.inbox && req.webhook ? await deps.inbox.open(req.run, req.seq) : undefined;
  const input = openedInput(req.source);

  if (req.write.length > 0) await outcomeSegments(store, req.run, req.seq, req.write, input);

  const s = await startStep(deps, req, input);
  const { res, sub } = s;
  // A retried step (its daemon died: a heartbeat timeout) ends once its orders are sent: the jobs
  // the dead daemon sent are known to the workflow only, which polls them all at its next step
  // (workflows/batch/ledger-step.ts, newDaemon); a wait here would only delay that step. It refills
  // once, without waiting, the slots of the jobs its inbox already holds finished (their webhooks
  // came while no daemon ran the batch): else they stay empty until that next step, after the new
  // daemon's first workflow task (it replays the batch's history: 0.6-1.6 s at load 7-10).
  const retried = attempt() > 1;
  // Webhooks are an accelerator: late jobs are polled, and all of them steadily once webhooks stop.
  const inbox = received && deps.inFlight ? steadyPoll(deps, received, req, res) : received;
  if (inbox instanceof SteadyPoll) polls.of = inbox;
  // Retries first (they hold their slot), then lines deferred earlier, then new lines. The retries
  // take the budget first, answered while the rest is sent: under faults a /retry answered late (or
  // refused after a lost answer, then asked about) held up every new submission of the step.
  const retrying = sendRetries(s);
  retrying.catch(() => undefined); // awaited below: its failure fails the step there
  await s.sends.sendAll(await deferredLines(s, s.yielding ? [] : req.submit), s.beating('submit'));
  if (req.read && !s.yielding) await readAndSubmit(s, req.read);
  res.rateLimited = sub.rateLimited;

  await cancelJobs(s);
  // The polls run while the step refills (a poll answered late, under faults, held up every new
  // submission of the step): each finished job joins `finished` as its answer comes; with the
  // daemon's memory of the batch's jobs, those unanswered after a while are handed on to it.
  const finished: JobRecord[] = [];
  const polling = startPolls(s, finished, inbox instanceof SteadyPoll);
  // An open feed (a pipeline's stage) may grow while the step refills: refill at its end too.
  const feed = isFeedLocation(req.source);
  if (inbox && req.collect.refillMs && req.read && res.read && (!res.read.eof || feed)) {
    const keep = await keepOf(store, req);
    // The jobs held as the refill starts: the workflow's (`held`) and the new lines the step's read sent.
    const held =
      req.collect.held !== undefined ? req.collect.held + req.read.room - (s.spare ?? req.read.room) : undefined;
    const open = feed ? { spare: s.spare ?? 0, ...(held !== undefined ? { held } : {}) } : undefined;
    const underWay = retried ? undefined : polling.polls;
    await refill(inbox, input, req, res, sub, s.sends, finished, s.parsed, s.outranked, keep, open, underWay, retried);
  }
  const polled = new Set<JobRecord>(await polling.ended());
  await retrying;
  const waitMs = retried ? 0 : req.collect.waitMs > 0 ? req.collect.waitMs : s.yielding ? YIELD_WAIT_MS : 0;
  // A step waiting on earlier submissions not answered yet also returns when one answers.
  const wake = req.sg && deps.detached ? deps.detached.next(req.run) : undefined;
  const rest = inbox && !retried ? lastJobs(s, finished, feed) : 0;
  if (rest > 0) await awaitLast(inbox!, req, rest, finished);
  else await awaitFinished(inbox, req, waitMs, finished, wake);
  if (inbox instanceof SteadyPoll) inbox.stop();
  // Submissions whose job's webhook came before their answer are answered by it (the URL names the
  // input); the step's own still unanswered are handed on; earlier ones answered since are reported.
  const claims = claimedJobs(finished);
  s.sends.byWebhook(claims);
  const sg = await s.sends.end();
  if (sg.length > 0) res.sg = sg;
  if (deps.detached) res.dm = deps.detached.id;
  const reported = (id: string, dup?: boolean): void => deps.inFlight?.recheck(req.run.workflowId, id, dup);
  if (req.sg) await reportSubmitting(store, req.run, req.sg, res, deps.detached, reported, claims);
  if (inbox instanceof SteadyPoll) {
    inbox.sync();
    for (const r of inbox.polled) polled.add(r);
  }
  res.completions = await collected(store, req, finished, polled);
  await endStep(s, inbox instanceof SteadyPoll && inbox.polling);
  // Kept once, with how far it read the inbox: a concurrent attempt of this step that finished first is the answer.
  const keep: Kept = inbox ? { ...res, inboxAt: inbox.position() } : res;
  if (!(await store.create(done, keep))) return withoutInbox((await store.get(done)) as Kept);
  return res;
}

/** Opens the step's submitter and its standing among the daemon's batches on the endpoint. */
async function startStep(deps: StepDeps, req: StepRequest, input: BatchInput): Promise<Step> {
  const res = emptyStepResult();
  const sub = await Submitter.open(deps.queue, deps.store, req, req.webhook ? deps.webhooks : undefined);
  // Priority among the daemon's batches on this endpoint: while a higher one has input left, this
  // one submits no new lines (retries still go), so its jobs do not queue ahead of the higher one's.
  const priority = req.priority ?? DEFAULT_PRIORITY;
  const prio = req.priority !== undefined ? { priority: req.priority } : {};
  const me = runKey(req.run);
  const wants = req.more ?? (req.read !== undefined || req.submit.length > 0 || req.retry.length > 0);
  const stand = standing(deps.board, me, req.endpointId, priority, wants);
  const outranked = (): boolean => stand.outranked();
  const yielding = outranked();
  // New submissions stop as soon as a higher-priority batch turns up, or once the budget has held
  // this step for a while (they come back deferred: the next step sends them, and says `rate-budget`).
  sub.yieldIf = () => outranked() || sub.heldLong;
  const record = (ref: LineRef, r: Submitted): void => {
    if (r === undefined) res.deferred.push(ref);
    else if ('error' in r) res.rejected.push({ i: ref.i, error: r.error });
    else res.submitted.push({ ...ref, id: r.id, ...(r.dup ? { dup: true } : {}) });
  };
  const parsed = (ref: LineRef, text: string) => {
    const p = parseLine(text, req.inputFormat, req.policy);
    if ('bad' in p) res.bad.push({ i: ref.i, reason: `line ${ref.i + 1}: ${p.bad}` });
    return 'body' in p ? p.body : undefined;
  };
  const beating = (phase: string) => () => beat({ seq: req.seq, phase });
  // A late answer's job is in flight from now, late like any other (a webhook that came before it
  // was matched by its URL's claim, and its job is not tracked again); a replayed one may have
  // finished long ago (its webhook gone to a daemon that died): polled at once.
  const answered = (id: string, dup?: boolean): void => {
    if (dup) deps.inFlight?.replayed(req.run.workflowId, id);
    else deps.inFlight?.add(req.run.workflowId, id);
  };
  const detach = req.dt && deps.detached ? { detach: deps.detached } : {};
  const sends = new StepSends({ run: req.run, seq: req.seq, sub, record, answered, ...detach });
  return { deps, req, input, res, sub, sends, stand, me, prio, yielding, outranked, beating, record, parsed, answered };
}

/** The bodies of deferred lines the workflow found room for (read a few at a time). */
async function deferredLines(s: Step, refs: LineRef[]): Promise<{ ref: LineRef; body: JobSubmission }[]> {
  const out: { ref: LineRef; body: JobSubmission }[] = [];
  for (let n = 0; n < refs.length; n += 16) {
    const texts = await Promise.all(refs.slice(n, n + 16).map((r) => s.input.readLineAt(r.o, r.l)));
    texts.forEach((text, k) => {
      const ref = refs[n + k]!;
      const body = s.parsed(ref, text);
      if (body) out.push({ ref, body });
    });
  }
  return out;
}

/**
 * When this step sent the file's last line and nothing else is left to send (`collect.last`), the
 * jobs the batch still holds, not finished in the step: it waits for them as the next step would.
 * 0 otherwise, or once a job failed (the workflow decides its retry).
 */
function lastJobs(s: Step, finished: JobRecord[], feed: boolean): number {
  const { req, res, sub } = s;
  const last = req.collect.last;
  if (!last || feed || !res.read?.eof || res.deferred.length > 0 || sub.limited || s.outranked()) return 0;
  if (finished.some((r) => r.status !== 'COMPLETED')) return 0;
  const done = new Set(finished.map((r) => r.id)).size;
  return last.held + s.sends.lines - res.rejected.length - done;
}

/** The price when asked for, what held the step back, and the board told once the input is all sent. */
async function endStep(s: Step, polling: boolean): Promise<void> {
  const { deps, req, res } = s;
  if (req.wantPrice && deps.price) {
    const price = await deps.price(req.endpointId).catch(() => undefined);
    if (price !== undefined) res.pricePerHour = price;
  }
  const held: WaitReason[] = [];
  if (s.sub.held) held.push('rate-budget');
  if (s.stand.yielded) held.push('priority');
  if (polling) held.push('no-webhooks');
  if (held.length > 0) res.held = held;
  if (res.read?.eof && res.deferred.length === 0) deps.board?.done(s.me);
}

const steadyPoll = (deps: StepDeps, inner: InboxReader, req: StepRequest, res: StepResult): SteadyPoll =>
  new SteadyPoll({
    inner,
    jobs: deps.inFlight!,
    queue: deps.queue,
    req,
    res,
    ...(deps.health ? { health: deps.health } : {}),
  });

/** A step result as kept in the store: with the inbox positions the next step starts from (not for history). */
type Kept = StepResult & { inboxAt?: InboxPosition };

function withoutInbox(kept: Kept): StepResult {
  const { inboxAt: _, ...res } = kept;
  return res;
}
