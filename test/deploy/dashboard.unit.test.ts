/** The Grafana dashboard as Grafana loads it: its panels fit the grid, each queries the chosen Prometheus, each query is filtered as the variables say. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deployDir } from '../helpers/promql';

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string; datasource: { uid: string } }[];
}
const dash = JSON.parse(readFileSync(join(deployDir, 'grafana', 'sluice.json'), 'utf8')) as {
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; type: string }[] };
};

describe('deploy/grafana/sluice.json', () => {
  it('has a stable uid, unique panel ids, and panels inside the 24-column grid that do not overlap', () => {
    expect(dash.uid).toBe('sluice');
    const ids = dash.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const cells = new Set<string>();
    for (const p of dash.panels) {
      const g = p.gridPos;
      expect(g.x + g.w, p.title).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++)
        for (let y = g.y; y < g.y + g.h; y++) {
          expect(cells.has(`${x},${y}`), `${p.title} overlaps at ${x},${y}`).toBe(false);
          cells.add(`${x},${y}`);
        }
    }
  });

  it('queries the Prometheus the `datasource` variable picks, with unique refIds per panel', () => {
    expect(dash.templating.list.find((v) => v.name === 'datasource')?.type).toBe('datasource');
    const panels = dash.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(20);
    for (const p of panels) {
      expect(p.datasource?.uid, p.title).toBe('${datasource}');
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      expect(new Set(p.targets!.map((t) => t.refId)).size, p.title).toBe(p.targets!.length);
      for (const t of p.targets!) expect(t.datasource.uid, p.title).toBe('${datasource}');
    }
  });

  it('filters every batch query by $batch, every pipeline query by $pipeline and every scaler query by $endpoint', () => {
    for (const p of dash.panels)
      for (const t of p.targets ?? []) {
        if (/sluice_batch_/.test(t.expr)) expect(t.expr, p.title).toContain('batch=~"$batch"');
        if (/sluice_pipeline_/.test(t.expr)) expect(t.expr, p.title).toContain('pipeline=~"$pipeline"');
        if (/sluice_scaler_|sluice_platform_/.test(t.expr)) expect(t.expr, p.title).toContain('endpoint=~"$endpoint"');
      }
  });
});
