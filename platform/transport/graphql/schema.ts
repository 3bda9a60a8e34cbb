/** The executable control-plane GraphQL schema: SDL with the resolvers attached. */
import { buildSchema, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import { RESOLVERS } from './resolvers';
import { SDL } from './sdl';
import { CATALOG_SDL } from './sdl-catalog';
import { POD_SDL } from './sdl-pod';
import { TEMPLATE_SDL } from './sdl-template';

/** The executable control-plane schema: the SDL parts with {@link RESOLVERS} attached. */
export function buildControlPlaneSchema(): GraphQLSchema {
  const schema = buildSchema([SDL, TEMPLATE_SDL, POD_SDL, CATALOG_SDL].join('\n'));
  for (const [typeName, fields] of Object.entries(RESOLVERS)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type))
      throw new Error(`resolvers given for ${typeName}, which is not an object type of the schema`);
    const defs = type.getFields();
    for (const [name, resolve] of Object.entries(fields)) {
      const field = defs[name];
      if (!field) throw new Error(`resolver given for ${typeName}.${name}, which the schema does not have`);
      // The map is typed per field in resolvers.ts; graphql-js checks nothing at this boundary anyway.
      field.resolve = resolve as GraphQLFieldResolver<unknown, unknown>;
    }
  }
  return schema;
}
