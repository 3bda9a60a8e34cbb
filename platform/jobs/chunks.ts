/** Splitting of stream chunks over the size limit. */
import { type StreamChunk } from '../../contracts';

/**
 * Splits a chunk whose output is over `maxBytes` into several. A string output is cut into
 * pieces (on code-point boundaries); any other output is serialised to JSON text first, so a
 * reader joins the pieces' `output` strings and parses them. Other chunk fields stay on the
 * first piece only; every piece carries `metrics.split = { index, count }`.
 */
export function splitChunk(chunk: StreamChunk, maxBytes: number): StreamChunk[] {
  const text = typeof chunk.output === 'string' ? chunk.output : JSON.stringify(chunk.output ?? null);
  if (Buffer.byteLength(text) <= maxBytes) return [chunk];
  const pieces: string[] = [];
  let current = '';
  let currentBytes = 0;
  for (const ch of text) {
    const b = Buffer.byteLength(ch);
    if (currentBytes + b > maxBytes) {
      pieces.push(current);
      current = '';
      currentBytes = 0;
    }
    current += ch;
    currentBytes += b;
  }
  if (current.length > 0) pieces.push(current);
  const json = typeof chunk.output !== 'string';
  return pieces.map((output, index) => ({
    ...(index === 0 ? chunk : {}),
    output,
    metrics: { ...(index === 0 ? chunk.metrics : {}), split: { index, count: pieces.length, json } },
  }));
}
