/**
 * HTML for the console's pages: hono's `html` template (every interpolated value escaped, nested
 * templates kept), the page frame, and the small formatters the pages share.
 */
import { html, raw } from 'hono/html';
import { type HtmlEscapedString } from 'hono/utils/html';
import { type ChartData } from './series';

/** A fragment of escaped HTML. */
export type Html = HtmlEscapedString;

/** `h\`<p>${value}</p>\``: values are escaped, nested `h` fragments are not escaped again. Synchronous. */
export function h(strings: TemplateStringsArray, ...values: unknown[]): Html {
  const out = html(strings, ...values);
  if (out instanceof Promise) throw new Error('console html must be synchronous');
  return out;
}

/** Trusted markup, written by the console itself (never a value from outside). */
export const trusted = (markup: string): Html => raw(markup);

/** The navigation's sections: one per kind of page. */
const NAV = [
  ['/batches', 'Batches'],
  ['/scalers', 'Scalers'],
  ['/endpoints', 'Endpoints'],
] as const;

/** What every page gets: its title, the section it belongs to, its body; `charts` loads uPlot. */
export interface PageFrame {
  title: string;
  section: string;
  body: Html;
  charts?: boolean;
}

/** A whole page: head (assets from the console itself, never a CDN), navigation, main. */
export function page(f: PageFrame): Html {
  const nav = NAV.map(
    ([href, label]) => h`<a href="${href}"${f.section === href ? trusted(' aria-current="page"') : ''}>${label}</a>`,
  );
  return h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${f.title} · sluice</title><link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/console.css">
${f.charts ? h`<link rel="stylesheet" href="/assets/uPlot.min.css"><script src="/assets/uPlot.iife.min.js"></script>` : ''}
<script src="/assets/htmx.min.js"></script><script src="/assets/console.js" defer></script>
</head><body>
<header><a class="brand" href="/">sluice</a><nav aria-label="sections">${nav}</nav></header>
<main><h1>${f.title}</h1>
${f.body}
</main></body></html>`;
}

/** A fragment that refreshes itself from `url` every `seconds` (htmx polling; at most one request a second). */
export function live(url: string, seconds: number, inner: Html, id: string): Html {
  return h`<div id="${id}" hx-get="${url}" hx-trigger="every ${Math.max(1, seconds)}s" hx-swap="outerHTML">${inner}</div>`;
}

/** A count with thousands separators. */
export const num = (n: number | undefined): string => (n === undefined ? '–' : n.toLocaleString('en-US'));

/** US dollars, to the cent (to a tenth of a cent below a dollar). */
export const usd = (n: number | undefined): string =>
  n === undefined ? '–' : `$${n < 1 ? n.toFixed(3) : n.toFixed(2)}`;

/** An epoch-ms time as UTC `YYYY-MM-DD HH:MM:SS`. */
export const time = (ms: number | undefined): string =>
  ms === undefined ? '–' : new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

/** A duration in ms as `1h 02m`, `3m 04s`, `5.2s`. */
export function duration(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '–';
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(Math.floor(s % 60)).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** A progress bar: a native <progress> element with its text for screen readers. */
export function bar(done: number, total: number | undefined): Html {
  if (!total) return h`<span class="muted">${num(done)} done</span>`;
  const pct = Math.min(100, (100 * done) / total);
  return h`<progress max="${total}" value="${done}" aria-label="${pct.toFixed(0)} percent">${pct.toFixed(0)}%</progress>`;
}

/** A status as a badge whose class follows its kind (ok, bad, live, idle). */
export function badge(status: string): Html {
  const kind = /COMPLETED|^done$|^running$|^ok$/i.test(status)
    ? 'ok'
    : /FAIL|TIMED_OUT|TERMINATED|EXPIRED|unhealthy/i.test(status)
      ? 'bad'
      : /RUNNING|IN_PROGRESS|IN_QUEUE/.test(status)
        ? 'live'
        : 'idle';
  return h`<span class="badge ${kind}">${status}</span>`;
}

/** A definition list of label → value rows. */
export function facts(rows: [string, Html | string | number | undefined][]): Html {
  return h`<dl class="facts">${rows.map(([k, v]) => h`<dt>${k}</dt><dd>${v ?? '–'}</dd>`)}</dl>`;
}

/** A table with a header row; each row is a list of cells. */
export function table(head: string[], rows: (Html | string | number | undefined)[][], empty = 'none'): Html {
  if (rows.length === 0) return h`<p class="muted">${empty}</p>`;
  return h`<table><thead><tr>${head.map((c) => h`<th scope="col">${c}</th>`)}</tr></thead>
<tbody>${rows.map((r) => h`<tr>${r.map((c) => h`<td>${c ?? '–'}</td>`)}</tr>`)}</tbody></table>`;
}

/** A chart placeholder: console.js draws it with uPlot from the JSON it carries (series: [label, color]). */
export function chart(id: string, label: string, data: ChartData): Html {
  return h`<figure class="chart"><figcaption>${label}</figcaption><div class="uplot-target" id="${id}" data-chart="${JSON.stringify(data)}"></div></figure>`;
}
