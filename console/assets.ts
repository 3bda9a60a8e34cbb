/**
 * The console's static assets, all served by sluice itself (no CDN, no bundler): htmx and uPlot read
 * from their npm packages once, and the console's own stylesheet and script (./style.ts).
 */
import { readFileSync } from 'node:fs';
import { CONSOLE_CSS, CONSOLE_JS } from './style';

/** One asset: its bytes' text and content type. */
export interface Asset {
  body: string;
  type: string;
}

const JS = 'text/javascript; charset=utf-8';
const CSS = 'text/css; charset=utf-8';

/** The files of the npm packages the pages load, by the name they are served under. */
const PACKAGED: Record<string, [string, string]> = {
  'htmx.min.js': ['htmx.org/dist/htmx.min.js', JS],
  'uPlot.iife.min.js': ['uplot/dist/uPlot.iife.min.js', JS],
  'uPlot.min.css': ['uplot/dist/uPlot.min.css', CSS],
};

let cache: Map<string, Asset> | undefined;

/** Every asset by name (read from node_modules on first use, then kept). */
export function assets(): Map<string, Asset> {
  if (cache) return cache;
  const out = new Map<string, Asset>([
    ['console.css', { body: CONSOLE_CSS, type: CSS }],
    ['console.js', { body: CONSOLE_JS, type: JS }],
  ]);
  for (const [name, [file, type]] of Object.entries(PACKAGED))
    out.set(name, { body: readFileSync(require.resolve(file), 'utf8'), type });
  cache = out;
  return out;
}
