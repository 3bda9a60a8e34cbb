/** `saveEndpoint` with an inline `template` (Flash, runpodctl): the template is created first, then the endpoint points at it. */
import { type Endpoint, type SaveTemplateInput } from '../../../contracts';
import { BadRequestError } from '../../core/errors';
import { shortId } from '../../core/ids';
import { saveEndpoint } from '../../control-plane/endpoints';
import { createTemplate } from '../../control-plane/templates';
import { type User } from '../../control-plane/users';
import { type PlatformServices } from '../../services';
import { templateBody, templateExtras } from './template-shape';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `saveEndpoint(input)`. An inline `template` becomes a new serverless template of the caller
 * (named as given; a name already taken gets a short suffix, since names are unique across the
 * platform) and the endpoint uses it. If the endpoint is then refused, the template is removed again.
 */
export function saveEndpointInput(s: PlatformServices, user: User, input: unknown): Endpoint {
  if (!isObject(input) || input.template === undefined || input.template === null) return saveEndpoint(s, user, input);
  const { template, ...rest } = input;
  if (!isObject(template)) throw new BadRequestError('template: must be an object', { field: 'template' });
  if (rest.templateId !== undefined && rest.templateId !== null) {
    throw new BadRequestError('template: give either templateId or an inline template, not both', {
      field: 'template',
    });
  }
  const tpl = template as SaveTemplateInput;
  const name = tpl.name || `${String(rest.name ?? 'endpoint')}__template`;
  const body = { ...templateBody({ ...tpl, name }), isServerless: true };
  const taken = s.registry.templateByName(name) !== undefined;
  const created = createTemplate(
    s.registry,
    user,
    taken ? { ...body, name: `${name}-${shortId(6)}` } : body,
    templateExtras(tpl),
  );
  try {
    return saveEndpoint(s, user, { ...rest, templateId: created.id });
  } catch (err) {
    s.registry.deleteTemplate(created.id);
    throw err;
  }
}
