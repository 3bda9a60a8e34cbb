/** The command line that runs a TypeScript file as a worker pod through tsx's loader (test fixtures and bench workers). */
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** `node --import <tsx loader> file ...args`: a pod's start command for a `.ts` worker. */
export function tsxCommand(file: string, ...args: string[]): string[] {
  const tsx = dirname(require.resolve('tsx/package.json'));
  return [process.execPath, '--import', pathToFileURL(join(tsx, 'dist', 'loader.mjs')).href, file, ...args];
}
