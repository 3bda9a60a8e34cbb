/** Conversions between the GraphQL template shape (one `dockerArgs` string, comma-separated `ports`, `env` as pairs) and the REST/stored one. */
import {
  TEMPLATE_EXTRAS_DEFAULTS,
  type EnvironmentVariable,
  type PodTemplate,
  type SaveTemplateInput,
  type TemplateExtras,
} from '../../../contracts';
import { BadRequestError } from '../../core/errors';
import { type StoredTemplate } from '../../control-plane/registry';

/** Splits a command line like a POSIX shell would (quotes and backslashes; no expansion). */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote === "'") {
      if (c === "'") quote = null;
      else cur += c;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1]!)) cur += line[++i];
      else cur += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (quote) throw new BadRequestError(`dockerArgs: unterminated ${quote} quote`, { field: 'dockerArgs' });
  if (inWord) out.push(cur);
  return out;
}

/** The inverse of {@link splitCommand}: quotes only the arguments that need it. */
export function joinCommand(args: readonly string[]): string {
  return args.map((a) => (/^[A-Za-z0-9_\-+=.,/:@%]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/**
 * The REST-shaped body (create or update) of a GraphQL `saveTemplate` input. On an update,
 * `isServerless` and `category` may only repeat the current values (they are fixed at creation).
 */
export function templateBody(input: SaveTemplateInput, current?: StoredTemplate): Record<string, unknown> {
  const { id: _id, dockerArgs, ports, env, isServerless, category, ...all } = input;
  const {
    startSsh: _ssh,
    startJupyter: _jupyter,
    advancedStart: _adv,
    startScript: _script,
    portsConfig: _pc,
    config: _config,
    ...rest
  } = all;
  const body: Record<string, unknown> = Object.fromEntries(
    Object.entries(rest).filter(([, v]) => v !== undefined && v !== null),
  );
  if (dockerArgs !== undefined && dockerArgs !== null) {
    if (rest.dockerStartCmd)
      throw new BadRequestError('dockerArgs: give either dockerArgs or dockerStartCmd, not both', {
        field: 'dockerArgs',
      });
    body.dockerStartCmd = splitCommand(dockerArgs);
  }
  if (ports !== undefined && ports !== null)
    body.ports = ports
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean);
  if (env !== undefined && env !== null) body.env = Object.fromEntries(env.map((e) => [e.key, e.value]));
  if (!current) {
    if (isServerless !== undefined && isServerless !== null) body.isServerless = isServerless;
    if (category !== undefined && category !== null) body.category = category;
  } else {
    if (isServerless !== undefined && isServerless !== null && isServerless !== current.isServerless) {
      throw new BadRequestError('isServerless: cannot be changed after the template is created', {
        field: 'isServerless',
      });
    }
    if (category !== undefined && category !== null && category !== current.category) {
      throw new BadRequestError('category: cannot be changed after the template is created', { field: 'category' });
    }
  }
  return body;
}

/** The console-only settings a `saveTemplate` input gives (absent ones left out). */
export function templateExtras(input: SaveTemplateInput): Partial<TemplateExtras> {
  const keys = Object.keys(TEMPLATE_EXTRAS_DEFAULTS) as (keyof TemplateExtras)[];
  return Object.fromEntries(keys.filter((k) => input[k] !== undefined && input[k] !== null).map((k) => [k, input[k]]));
}

/** An environment map as GraphQL `{key, value}` pairs. */
export const envList = (env: Record<string, string>): EnvironmentVariable[] =>
  Object.entries(env).map(([key, value]) => ({ key, value }));

/** A stored template as the GraphQL `PodTemplate`. */
export function podTemplateOf(t: StoredTemplate): PodTemplate {
  return {
    id: t.id,
    name: t.name,
    imageName: t.imageName,
    category: t.category,
    dockerArgs: joinCommand(t.dockerStartCmd),
    dockerEntrypoint: t.dockerEntrypoint,
    dockerStartCmd: t.dockerStartCmd,
    containerDiskInGb: t.containerDiskInGb,
    volumeInGb: t.volumeInGb,
    volumeMountPath: t.volumeMountPath,
    ports: t.ports.join(','),
    env: envList(t.env),
    isServerless: t.isServerless,
    isPublic: t.isPublic,
    isRunpod: t.isRunpod,
    readme: t.readme,
    containerRegistryAuthId: t.containerRegistryAuthId ?? null,
    earned: t.earned,
    runtimeInMin: t.runtimeInMin,
    ...TEMPLATE_EXTRAS_DEFAULTS,
    ...t.extras,
  };
}
