/**
 * What ends a pipeline step's rounds early, seen within about a second: the pipeline paused or
 * cancelled (its state, asked of the workflow), its deadline passed, its cost cap reached (the
 * stages' spend). The step then returns what its rounds did, and the workflow acts at once.
 */
import { costCapReached } from '../../contracts/limits';
import { type PipelineDefinition, type PipelineState } from '../../contracts/pipeline';

/** How often the controls are asked while a step runs rounds, ms. */
export const WATCH_MS = 1000;

/** What the daemon says of a pipeline's controls now (each may be absent: not asked). */
export interface StepControls {
  /** The workflow was paused or asked to cancel since the step started. */
  halted?: boolean;
  /** The stages' spend (USD), asked only of a pipeline with a cost cap. */
  spend?: number;
}

/** Asks the daemon for the pipeline's controls (never throws: an answer not had is no answer). */
export type AskControls = (spend: boolean) => Promise<StepControls>;

/**
 * Whether the pipeline's phase ends a step's rounds: cancelling; paused while the step reads new inputs (it must
 * read no more); running again after a pause the step saw, while the step reads nothing (the next step reads).
 */
export function phaseEndsRounds(
  phase: PipelineState['phase'] | undefined,
  step: { reading: boolean; sawPaused: boolean },
): boolean {
  if (phase === 'cancelling') return true;
  if (phase === 'paused') return step.reading;
  return phase === 'running' && !step.reading && step.sawPaused;
}

/** Watches a step's controls: asked in the background at most every {@link WATCH_MS}; `stop` says why the rounds end. */
export class StepWatch {
  /** Why the rounds end now (`deadline`, `cost-cap`, `halted`), if they do. */
  stop?: string;
  private asked = 0;
  private asking?: Promise<void>;

  constructor(
    private readonly def: Pick<PipelineDefinition, 'deadline' | 'maxCost'>,
    private readonly ask?: AskControls,
  ) {}

  /** Time left before the deadline (ms), or `ms` if sooner. */
  within(ms: number): number {
    return this.def.deadline === undefined ? ms : Math.max(0, Math.min(ms, this.def.deadline - Date.now()));
  }

  /** Looks again (the deadline at once, the daemon when due and not being asked); true when the rounds should end. */
  check(): boolean {
    if (this.stop === undefined && this.def.deadline !== undefined && Date.now() >= this.def.deadline)
      this.stop = 'deadline';
    if (this.stop === undefined && this.ask && !this.asking && Date.now() - this.asked >= WATCH_MS) {
      this.asked = Date.now();
      this.asking = this.ask(this.def.maxCost !== undefined)
        .then((c) => {
          if (c.halted) this.stop ??= 'halted';
          if (c.spend !== undefined && costCapReached(this.def.maxCost, c.spend)) this.stop ??= 'cost-cap';
        })
        .catch(() => undefined)
        .finally(() => (this.asking = undefined));
    }
    return this.stop !== undefined;
  }

  /** Waits for a question under way (a step does not end with one pending). */
  async settled(): Promise<void> {
    await this.asking;
  }
}
