/** The console's own stylesheet and browser script (served as /assets/console.css and /assets/console.js). */

/** Plain, readable on a laptop: system fonts, one column, tables that scroll sideways when narrow. */
export const CONSOLE_CSS = `
:root { color-scheme: light dark; --fg:#1b1f24; --bg:#fff; --muted:#5c6670; --line:#d8dee4; --ok:#1a7f37; --bad:#cf222e; --live:#0969da; --idle:#6e7781; }
@media (prefers-color-scheme: dark) { :root { --fg:#e6edf3; --bg:#0d1117; --muted:#9aa4ae; --line:#30363d; --ok:#3fb950; --bad:#f85149; --live:#58a6ff; --idle:#8b949e; } }
* { box-sizing: border-box; }
body { margin:0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); background:var(--bg); }
header { display:flex; gap:1.5rem; align-items:center; padding:.6rem 1.5rem; border-bottom:1px solid var(--line); }
header .brand { font-weight:700; text-decoration:none; color:inherit; }
nav a { margin-right:1rem; color:var(--live); text-decoration:none; }
nav a[aria-current=page] { font-weight:700; text-decoration:underline; }
main { padding:1rem 1.5rem 3rem; max-width:1280px; }
h1 { font-size:1.35rem; margin:.4rem 0 1rem; word-break:break-all; }
h2 { font-size:1.1rem; margin:1.6rem 0 .6rem; }
table { border-collapse:collapse; width:100%; display:block; overflow-x:auto; }
th, td { text-align:left; padding:.3rem .6rem; border-bottom:1px solid var(--line); white-space:nowrap; vertical-align:top; }
td.wrap, td pre { white-space:pre-wrap; word-break:break-all; }
th { font-weight:600; color:var(--muted); }
.muted { color:var(--muted); }
.badge { display:inline-block; padding:0 .45rem; border-radius:.7rem; font-size:.8rem; border:1px solid currentColor; }
.badge.ok { color:var(--ok); } .badge.bad { color:var(--bad); } .badge.live { color:var(--live); } .badge.idle { color:var(--idle); }
progress { width:9rem; height:.8rem; vertical-align:middle; }
dl.facts { display:grid; grid-template-columns:max-content 1fr; gap:.2rem 1.2rem; margin:0; }
dl.facts dt { color:var(--muted); } dl.facts dd { margin:0; word-break:break-all; }
.cards { display:flex; flex-wrap:wrap; gap:.8rem; margin:.5rem 0 1rem; }
.card { border:1px solid var(--line); border-radius:.4rem; padding:.5rem .9rem; min-width:8rem; }
.card b { display:block; font-size:1.3rem; }
.grid { display:grid; grid-template-columns:repeat(auto-fit, minmax(420px, 1fr)); gap:1.2rem; }
form.inline { display:inline; }
button, .button { font:inherit; padding:.25rem .8rem; border:1px solid var(--line); border-radius:.3rem; background:transparent; color:var(--fg); cursor:pointer; text-decoration:none; }
button.danger { border-color:var(--bad); color:var(--bad); }
.filters a { margin-right:.8rem; }
.filters a[aria-current=true] { font-weight:700; }
figure.chart { margin:0; } figcaption { color:var(--muted); margin-bottom:.3rem; }
pre { margin:0; font-size:.85rem; max-height:16rem; overflow:auto; }
.notice { border-left:4px solid var(--live); padding:.4rem .8rem; margin:.6rem 0; }
.notice.bad { border-color:var(--bad); }
label { display:block; margin:.4rem 0; }
ol.stages { display:flex; flex-wrap:wrap; align-items:stretch; gap:0; list-style:none; padding:0; margin:.5rem 0 1rem; }
ol.stages li { display:flex; align-items:center; }
ol.stages li + li::before { content:'→'; color:var(--muted); font-size:1.4rem; padding:0 .6rem; }
.stage { border:1px solid var(--line); border-radius:.4rem; padding:.5rem .8rem; min-width:11rem; }
.stage h3 { margin:0 0 .3rem; font-size:1rem; }
.stage dl { display:grid; grid-template-columns:max-content auto; gap:0 .8rem; margin:0; font-size:.9rem; }
.stage dt { color:var(--muted); } .stage dd { margin:0; text-align:right; font-variant-numeric:tabular-nums; }
input { font:inherit; padding:.2rem .4rem; }
`;

/**
 * Draws every `[data-chart]` element with uPlot, once, including those htmx swaps in later (a
 * MutationObserver, so no htmx event name is relied on). Data: { x: epoch s[], series: [{label, values, step?}] }
 * (`step`: a value that holds until the next one, as bounds do).
 */
export const CONSOLE_JS = `
(function () {
  var COLORS = ['#0969da', '#cf222e', '#1a7f37', '#9a6700', '#8250df', '#6e7781'];
  function draw(el) {
    if (el.dataset.drawn || typeof uPlot === 'undefined') return;
    el.dataset.drawn = '1';
    var d = JSON.parse(el.dataset.chart);
    if (!d.x.length) { el.textContent = 'no samples yet'; return; }
    var series = [{}].concat(d.series.map(function (s, i) {
      var out = { label: s.label, stroke: COLORS[i % COLORS.length], width: 2, spanGaps: true };
      if (s.step) out.paths = uPlot.paths.stepped({ align: 1 });
      return out;
    }));
    var width = Math.max(320, Math.min(el.parentElement.clientWidth || 600, 900));
    new uPlot({ width: width, height: 220, series: series, scales: { x: { time: true } } },
      [d.x].concat(d.series.map(function (s) { return s.values; })), el);
  }
  function all() { document.querySelectorAll('[data-chart]').forEach(draw); }
  document.addEventListener('DOMContentLoaded', function () {
    all();
    new MutationObserver(all).observe(document.body, { childList: true, subtree: true });
  });
})();
`;
