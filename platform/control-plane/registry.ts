/** Templates and endpoints in memory, written through to SQLite, with change events for the pool. */
import { EventEmitter } from 'node:events';
import { ENDPOINT_DEFAULTS, type Endpoint, type Template, type TemplateExtras } from '../../contracts';
import { type Db } from '../core/db';
import { shortId } from '../core/ids';
import { ConflictError, NotFoundError } from '../core/errors';

/** A template as stored: the wire Template plus its owner and the GraphQL-only settings. */
export interface StoredTemplate extends Template {
  userId: string;
  extras?: Partial<TemplateExtras>;
}

export type NewTemplate = Omit<StoredTemplate, 'id' | 'earned' | 'runtimeInMin'> & { id?: string };
export type NewEndpoint = Omit<Endpoint, 'id' | 'version'> & { id?: string };

interface RegistryEvents {
  /** An endpoint was created or changed (the pool reacts to worker counts and versions). */
  endpoint: [Endpoint];
  endpointDeleted: [Endpoint];
}

/**
 * Templates and endpoints: small, read on every request, so they live in memory and are
 * written through to SQLite.
 */
export class Registry extends EventEmitter<RegistryEvents> {
  private readonly templates = new Map<string, StoredTemplate>();
  private readonly endpoints = new Map<string, Endpoint>();

  constructor(private readonly db: Db) {
    super();
    for (const row of db.prepare('SELECT data FROM templates').all() as { data: string }[]) {
      const t = JSON.parse(row.data) as StoredTemplate;
      this.templates.set(t.id, t);
    }
    for (const row of db.prepare('SELECT data FROM endpoints').all() as { data: string }[]) {
      const e = { ...ENDPOINT_DEFAULTS, ...(JSON.parse(row.data) as Endpoint) };
      this.endpoints.set(e.id, e);
    }
  }

  template(id: string): StoredTemplate | undefined {
    return this.templates.get(id);
  }

  templateByName(name: string): StoredTemplate | undefined {
    for (const t of this.templates.values()) if (t.name === name) return t;
    return undefined;
  }

  templatesOf(userId: string): StoredTemplate[] {
    return [...this.templates.values()].filter((t) => t.userId === userId || t.isPublic);
  }

  /** Inserts or replaces a template; names are unique across the platform. */
  saveTemplate(input: NewTemplate): StoredTemplate {
    const id = input.id ?? shortId(10);
    const clash = this.templateByName(input.name);
    if (clash && clash.id !== id)
      throw new ConflictError(`name: a template named "${input.name}" already exists`, { field: 'name' });
    const previous = this.templates.get(id);
    const t: StoredTemplate = { earned: 0, runtimeInMin: 0, ...previous, ...input, id };
    this.db
      .prepare(
        'INSERT INTO templates(id, user_id, name, data) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, data = excluded.data',
      )
      .run(t.id, t.userId, t.name, JSON.stringify(t));
    this.templates.set(id, t);
    return t;
  }

  /** Deletes a template (the caller checked that no endpoint uses it). */
  deleteTemplate(id: string): void {
    this.db.prepare('DELETE FROM templates WHERE id = ?').run(id);
    this.templates.delete(id);
  }

  endpoint(id: string): Endpoint | undefined {
    return this.endpoints.get(id);
  }

  endpointsOf(userId: string): Endpoint[] {
    return [...this.endpoints.values()].filter((e) => e.userId === userId);
  }

  allEndpoints(): Endpoint[] {
    return [...this.endpoints.values()];
  }

  endpointsUsingTemplate(templateId: string): Endpoint[] {
    return [...this.endpoints.values()].filter((e) => e.templateId === templateId);
  }

  /** Inserts or replaces an endpoint; `version` starts at 1 and only {@link bumpVersion} raises it. */
  saveEndpoint(input: NewEndpoint): Endpoint {
    const id = input.id ?? shortId(14);
    const previous = this.endpoints.get(id);
    const e: Endpoint = { ...input, id, version: previous?.version ?? 1 };
    this.writeEndpoint(e);
    return e;
  }

  /** Starts a new release of the endpoint (template changed): workers of older versions are replaced. */
  bumpVersion(id: string): Endpoint {
    const e = this.endpoints.get(id);
    if (!e) throw new NotFoundError(`endpoint ${id} not found`);
    const next = { ...e, version: e.version + 1 };
    this.writeEndpoint(next);
    return next;
  }

  deleteEndpoint(id: string): void {
    const e = this.endpoints.get(id);
    if (!e) return;
    this.db.prepare('DELETE FROM endpoints WHERE id = ?').run(id);
    this.endpoints.delete(id);
    this.emit('endpointDeleted', e);
  }

  private writeEndpoint(e: Endpoint): void {
    this.db
      .prepare(
        'INSERT INTO endpoints(id, user_id, name, data) VALUES (?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, data = excluded.data',
      )
      .run(e.id, e.userId, e.name, JSON.stringify(e));
    this.endpoints.set(e.id, e);
    this.emit('endpoint', e);
  }
}
