/** Local stand-ins for container images: the folder a template's `imageName` runs in, and the image's environment. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What a pod whose template names this image runs in, since there is no container runtime:
 * a folder that plays the image's filesystem root and the image's `ENV`. A worker image's
 * `CMD python -u /handler.py` then runs the folder's `handler.py` with the `python` the `env`'s
 * PATH finds.
 */
export interface LocalImage {
  /** The image's root: the working directory, and where absolute paths of the command that exist in it point. */
  root: string;
  /**
   * The image's environment (below the template's `env` and the worker variables).
   * @default {}
   */
  env?: Record<string, string>;
}

/** How a pod's process is started: command, working directory and the image's environment. */
export interface ResolvedLaunch {
  command: string[];
  cwd: string;
  env: Record<string, string>;
}

/**
 * The launch of `command` in `image` (none: as given, in `defaultCwd`). Arguments that are
 * absolute paths existing under the image root are rewritten to that file; others stay as they
 * are (`/bin/sh` is the host's).
 */
export function resolveLaunch(
  command: readonly string[],
  image: LocalImage | undefined,
  defaultCwd: string,
): ResolvedLaunch {
  if (!image) return { command: [...command], cwd: defaultCwd, env: {} };
  const inImage = (arg: string): string =>
    arg.startsWith('/') && existsSync(join(image.root, arg)) ? join(image.root, arg) : arg;
  return { command: command.map(inImage), cwd: image.root, env: { ...image.env } };
}
