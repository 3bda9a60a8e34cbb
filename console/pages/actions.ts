/**
 * The actions, each confirmed on its own page (GET shows what it does, POST does it): a batch's
 * and a pipeline's pause, resume, cancel and rerun (retry failed), a scaler's pause, resume, override and clear-override; the same
 * library calls (and Temporal updates) the CLI sends. POSTs pass the same-origin check (app.ts).
 */
import { forgetBatch, forgetPipeline, type ConsoleContext } from '../context';
import { h, page, type Html } from '../html';

/** One action: what it says before, what it does, the fields it asks for. */
export interface ActionSpec {
  label: string;
  /** What the confirmation page says will happen. */
  explain: string;
  danger?: boolean;
  fields?: Html;
  run(ctx: ConsoleContext, id: string, form: Record<string, string>): Promise<unknown>;
}

/** A number field of a form, refused when missing or not a non-negative integer. */
export function intField(form: Record<string, string>, name: string): number {
  const n = Number(form[name]);
  if (form[name] === undefined || form[name].trim() === '' || !Number.isInteger(n) || n < 0)
    throw new ActionInputError(`${name} must be a whole number of 0 or more`);
  return n;
}

/** The form's input was wrong: a 400 page naming the problem. */
export class ActionInputError extends Error {
  readonly code = 'CONSOLE_BAD_INPUT' as const;
}

export const BATCH_ACTIONS: Record<string, ActionSpec> = {
  pause: {
    label: 'Pause',
    explain: 'No more inputs are submitted; jobs in flight finish. Resume goes on where it stopped.',
    run: (ctx, id) => ctx.sources.batch.pause(id),
  },
  resume: { label: 'Resume', explain: 'Submissions start again.', run: (ctx, id) => ctx.sources.batch.resume(id) },
  cancel: {
    label: 'Cancel',
    danger: true,
    explain:
      'Jobs in flight are cancelled, unsent inputs recorded NOT_SUBMITTED, the outcome files written. It cannot be undone.',
    run: (ctx, id) => ctx.sources.batch.cancel(id),
  },
  rerun: {
    label: 'Rerun failed inputs',
    explain:
      'A new run of this batch re-runs the inputs that ended FAILED, TIMED_OUT or JOB_EXPIRED (as `sluice batch rerun`).',
    run: (ctx, id) => {
      forgetBatch(ctx, id);
      return ctx.sources.batch.rerunFailed(id);
    },
  },
};

export const PIPELINE_ACTIONS: Record<string, ActionSpec> = {
  pause: {
    label: 'Pause',
    explain:
      'No more inputs are read and every stage stops submitting; jobs in flight finish. Resume goes on where it stopped (as `sluice pipeline pause`).',
    run: (ctx, id) => ctx.sources.pipeline.pause(id),
  },
  resume: {
    label: 'Resume',
    explain: 'Reading and submitting start again.',
    run: (ctx, id) => ctx.sources.pipeline.resume(id),
  },
  cancel: {
    label: 'Cancel',
    danger: true,
    explain:
      'Every stage cancels its jobs in flight; inputs not ended are recorded CANCELLED or NOT_SUBMITTED, the result files written. It cannot be undone.',
    run: (ctx, id) => ctx.sources.pipeline.cancel(id),
  },
  rerun: {
    label: 'Retry failed inputs',
    explain:
      "A new run of this pipeline runs the inputs that ended FAILED again, each from the stage where it failed, the earlier stages' outputs kept (as `sluice pipeline rerun`).",
    run: (ctx, id) => {
      forgetPipeline(ctx, id);
      return ctx.sources.pipeline.rerun(id);
    },
  },
};

export const SCALER_ACTIONS: Record<string, ActionSpec> = {
  pause: {
    label: 'Pause',
    explain: 'The bounds stay as they are (samples go on) until resumed.',
    run: (ctx, id) => ctx.sources.scaler.pause(id),
  },
  resume: {
    label: 'Resume',
    explain: 'The policy moves the bounds again.',
    run: (ctx, id) => ctx.sources.scaler.resume(id),
  },
  override: {
    label: 'Override the bounds',
    explain: 'Pins workersMin and workersMax for a while; then the policy takes over again.',
    fields: h`<label>workersMin <input name="min" type="number" min="0" required></label>
<label>workersMax <input name="max" type="number" min="0" required></label>
<label>for (minutes) <input name="minutes" type="number" min="1" value="10" required></label>`,
    run: (ctx, id, f) => {
      const minutes = intField(f, 'minutes');
      if (minutes < 1) throw new ActionInputError('minutes must be at least 1');
      return ctx.sources.scaler.override(id, {
        workersMin: intField(f, 'min'),
        workersMax: intField(f, 'max'),
        forMs: minutes * 60_000,
      });
    },
  },
  'clear-override': {
    label: 'Clear the override',
    explain: 'The policy takes over again now.',
    run: (ctx, id) => ctx.sources.scaler.clearOverride(id),
  },
};

/** The confirmation page of `action` on `what` (e.g. "batch b1"), posting back to `url`. */
export function confirmPage(spec: ActionSpec, what: string, url: string, back: string, section: string): Html {
  return page({
    title: `${spec.label}: ${what}`,
    section,
    body: h`<p>${spec.explain}</p>
<form method="post" action="${url}">${spec.fields ?? ''}
<p><button type="submit" class="${spec.danger ? 'danger' : ''}">${spec.label}</button> <a href="${back}">back</a></p></form>`,
  });
}

/** The page of an action that failed: the reason, and the way back. */
export function failedPage(spec: ActionSpec, what: string, message: string, back: string, section: string): Html {
  return page({
    title: `${spec.label}: ${what}`,
    section,
    body: h`<p class="notice bad">${message}</p><p><a href="${back}">back</a></p>`,
  });
}
