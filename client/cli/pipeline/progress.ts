/** `sluice pipeline watch` on a terminal: a bar for the inputs and one per stage (jobs done of fed, failed, in flight, rate, ETA, spend), redrawn in place. */
import { MultiBar, Presets, type SingleBar } from 'cli-progress';
import { type PipelineState } from '../../../contracts';
import { inputsText, stageJobsText } from './output';

/** The bars of one pipeline (on stderr); `show` redraws them from its state. */
export function pipelineBars(): { show(s: PipelineState): void; stop(): void } {
  const multi = new MultiBar(
    { format: '{name} {bar} {text}', hideCursor: true, barsize: 30, clearOnComplete: false },
    Presets.shades_classic,
  );
  let inputs: SingleBar | undefined;
  const stages: SingleBar[] = [];
  let width = 0;
  const name = (n: string) => n.padEnd(width);
  return {
    show(s: PipelineState): void {
      width = Math.max(6, ...s.stages.map((st) => st.name.length));
      const total = Math.max(1, s.counts.total ?? s.counts.read);
      const head = { name: name('inputs'), text: inputsText(s) };
      if (!inputs) inputs = multi.create(total, s.counts.done, head);
      else {
        inputs.setTotal(total);
        inputs.update(s.counts.done, head);
      }
      s.stages.forEach((st, k) => {
        const done = st.batch?.counts.done ?? 0;
        const payload = { name: name(st.name), text: stageJobsText(st) };
        const bar = (stages[k] ??= multi.create(Math.max(1, st.fed), done, payload));
        bar.setTotal(Math.max(1, st.fed));
        bar.update(done, payload);
      });
    },
    stop(): void {
      multi.stop();
    },
  };
}
