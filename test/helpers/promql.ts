/**
 * The PromQL of the repository's dashboard and alert rules, and the metric names it selects:
 * parsed with Prometheus' own grammar (`@prometheus-io/lezer-promql`, the one its web UI uses).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parser } from '@prometheus-io/lezer-promql';
import { parse } from 'yaml';

export const deployDir = join(__dirname, '..', '..', 'deploy');

/** One PromQL expression and where it is written. */
export interface Query {
  where: string;
  expr: string;
}

interface Panel {
  title?: string;
  targets?: { expr?: string }[];
  panels?: Panel[];
}

/** Grafana's variables stand for label values: any value parses (`.*` in a regex matcher). */
const withoutVariables = (expr: string): string => expr.replace(/\$\{?\w+\}?/g, '.*');

/** Every expr of the dashboard's panels (rows' panels included). */
export function dashboardQueries(file = join(deployDir, 'grafana', 'sluice.json')): Query[] {
  const dash = JSON.parse(readFileSync(file, 'utf8')) as { panels: Panel[] };
  const out: Query[] = [];
  const walk = (panels: Panel[]): void => {
    for (const p of panels) {
      for (const t of p.targets ?? [])
        if (t.expr) out.push({ where: `panel "${p.title}"`, expr: withoutVariables(t.expr) });
      walk(p.panels ?? []);
    }
  };
  walk(dash.panels);
  return out;
}

/** The metrics the dashboard's variables list values of (`label_values(metric, label)`). */
export function dashboardVariableMetrics(file = join(deployDir, 'grafana', 'sluice.json')): Query[] {
  const dash = JSON.parse(readFileSync(file, 'utf8')) as { templating: { list: { name: string; query?: unknown }[] } };
  return dash.templating.list.flatMap((v) => {
    const q = typeof v.query === 'string' ? v.query : (v.query as { query?: string } | undefined)?.query;
    const m = q ? /^label_values\((\w+),/.exec(q) : null;
    return m ? [{ where: `variable ${v.name}`, expr: m[1]! }] : [];
  });
}

/** Every alert's expr in the rules file. */
export function ruleQueries(file = join(deployDir, 'prometheus', 'alerts.yml')): Query[] {
  const rules = parse(readFileSync(file, 'utf8')) as {
    groups: { rules: { alert?: string; record?: string; expr: string }[] }[];
  };
  return rules.groups.flatMap((g) => g.rules.map((r) => ({ where: `rule ${r.alert ?? r.record}`, expr: r.expr })));
}

/**
 * The metric names an expression selects (`name{...}`, `{__name__="name"}`); throws on a syntax
 * error, naming where it is.
 */
export function metricNames(expr: string): string[] {
  const tree = parser.parse(expr);
  const names = new Set<string>();
  const cursor = tree.cursor();
  do {
    const text = expr.slice(cursor.from, cursor.to);
    if (cursor.type.isError)
      throw new Error(`PromQL syntax error at ${cursor.from}: ${expr.slice(cursor.from, cursor.from + 40)}`);
    if (cursor.name === 'Identifier' && cursor.node.parent?.name === 'VectorSelector') names.add(text);
    const byName = /^__name__\s*=\s*"([^"]+)"$/.exec(text);
    if (cursor.name === 'UnquotedLabelMatcher' && byName) names.add(byName[1]!);
  } while (cursor.next());
  return [...names];
}

/** The metric names with at least one sample in a Prometheus text exposition. */
export function sampledNames(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (m) names.add(m[1]!);
  }
  return names;
}
