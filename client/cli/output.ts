import { type JobWorkflowResult } from '../../contracts';
import { EXIT_CODES } from './exit-codes';

/** Exit code of a finished job: scripts tell success, failure and cancel apart. */
export function exitCodeOf(status: string | undefined): number {
  if (status === 'COMPLETED') return EXIT_CODES.ok;
  if (status === 'CANCELLED') return EXIT_CODES.cancelled;
  return EXIT_CODES.failed;
}

/** A result as a person reads it. */
export function describeResult(r: JobWorkflowResult, output: unknown): string {
  const lines = [`status      ${r.status}`];
  if (r.delayTime !== undefined) lines.push(`delay       ${r.delayTime} ms`);
  if (r.executionTime !== undefined) lines.push(`execution   ${r.executionTime} ms`);
  lines.push(`attempts    ${r.attempts.map((a) => `${a.number}:${a.how}:${a.status}`).join('  ')}`);
  if (r.streamChunks > 0) lines.push(`stream      ${r.streamChunks} chunks`);
  if (r.error) lines.push(`error       ${r.error}`);
  if (output !== undefined) lines.push(`output      ${JSON.stringify(output, null, 2).replace(/\n/g, '\n            ')}`);
  return lines.join('\n');
}
