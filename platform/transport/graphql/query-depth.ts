/** How deeply a GraphQL document nests, measured on its text before the (recursive) parser sees it. */

/**
 * The deepest nesting of `{`, `[` and `(` in a GraphQL document, outside strings, block strings
 * and comments. The graphql-js parser and validator recurse once per level: a document nested a
 * few thousand levels deep would overflow the stack.
 */
export function queryDepth(query: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < query.length; i++) {
    const c = query[i];
    if (c === '#') {
      while (i < query.length && query[i] !== '\n') i++;
    } else if (c === '"') {
      if (query.startsWith('"""', i)) {
        let end = query.indexOf('"""', i + 3);
        // `\"""` inside a block string is an escaped quote, not its end.
        while (end > 0 && query[end - 1] === '\\') end = query.indexOf('"""', end + 3);
        i = end < 0 ? query.length : end + 2;
      } else {
        for (i++; i < query.length && query[i] !== '"' && query[i] !== '\n'; i++) if (query[i] === '\\') i++;
      }
    } else if (c === '{' || c === '[' || c === '(') {
      max = Math.max(max, ++depth);
    } else if (c === '}' || c === ']' || c === ')') {
      // Never below zero: stray closers cannot hide the nesting that follows them.
      depth = Math.max(0, depth - 1);
    }
  }
  return max;
}
