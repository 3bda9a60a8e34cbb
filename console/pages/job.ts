/** `/jobs/:workflowId`: one job workflow: its phase, attempts and their remote job ids, its output or stream chunks. */
import { type JobView } from '../../client/job';
import { badge, duration, facts, h, live, page, table, time, type Html } from '../html';

/** What the page shows beside the view: the output (loaded when stored apart), the first chunks, the Temporal link. */
export interface JobExtras {
  output?: unknown;
  chunks: unknown[];
  /** Chunks stored in all (the page shows the first ones). */
  chunkCount: number;
  temporalUrl?: string;
}

/** JSON for people: indented, cut at `max` characters. */
export function jsonText(v: unknown, max = 20_000): string {
  const s = JSON.stringify(v, null, 2) ?? 'undefined';
  return s.length > max ? `${s.slice(0, max)}\n… (${s.length - max} more characters)` : s;
}

/** The live part (refreshed every 2 s while the workflow runs). */
export function jobLive(v: JobView, x: JobExtras): Html {
  const st = v.state;
  const attempts = v.result?.attempts ?? st?.attempts ?? [];
  const running = v.workflowStatus === 'RUNNING';
  const inner = h`<p>${badge(v.workflowStatus)}${st ? h` phase <b>${st.phase}</b>` : ''}${v.result ? h` remote status ${badge(v.result.status)}` : ''}</p>
${v.failure ? h`<p class="notice bad">${v.failure}</p>` : ''}
${facts([
  ['endpoint', st ? h`<a href="/endpoints/${encodeURIComponent(st.endpointId)}">${st.endpointId}</a>` : undefined],
  ['remote job', st?.remoteJobId],
  ['Temporal', x.temporalUrl ? h`<a href="${x.temporalUrl}">the workflow in the Temporal UI</a>` : undefined],
])}
<h2>Attempts</h2>
${table(
  ['#', 'remote job', 'how', 'status', 'started (UTC)', 'took', 'error'],
  attempts.map((a) => [
    a.number,
    a.remoteJobId,
    a.how,
    badge(a.status),
    time(a.startedAt),
    a.endedAt === undefined ? undefined : duration(a.endedAt - a.startedAt),
    a.error === undefined ? undefined : h`<span class="wrap">${a.errorType ? `${a.errorType}: ` : ''}${a.error}</span>`,
  ]),
  'not submitted yet',
)}
${v.progress !== undefined ? h`<h2>Progress</h2><pre>${jsonText(v.progress)}</pre>` : ''}
${x.output !== undefined ? h`<h2>Output</h2><pre>${jsonText(x.output)}</pre>` : ''}
${x.chunkCount > 0 ? h`<h2>Stream chunks <span class="muted">(${x.chunkCount}${x.chunkCount > x.chunks.length ? `, the first ${x.chunks.length} shown` : ''})</span></h2><pre>${x.chunks.map((c) => JSON.stringify(c)).join('\n')}</pre>` : ''}`;
  return running
    ? live(`/jobs/${encodeURIComponent(v.workflowId)}/live`, 2, inner, 'job-live')
    : h`<div id="job-live">${inner}</div>`;
}

export function jobPage(v: JobView, x: JobExtras): Html {
  return page({ title: `Job ${v.workflowId}`, section: '/endpoints', body: jobLive(v, x) });
}
