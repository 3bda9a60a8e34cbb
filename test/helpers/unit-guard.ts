/**
 * Setup file of the unit tier (vitest.config.ts): a unit test starts no process and listens on no
 * port. Starting a child process or listening throws, naming the rule, so a file that needs either
 * is renamed `*.test.ts` (the stack tier) rather than slowing the fast tier down.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

const refuse = (what: string) => (): never => {
  throw new Error(
    `${what} in a unit test: *.unit.test.ts files start no process and listen on no port; name this file *.test.ts`,
  );
};

for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const) {
  Object.defineProperty(childProcess, name, { value: refuse(`child_process.${name}`), configurable: true });
}
net.Server.prototype.listen = refuse('listening on a port');
// Named imports of node:child_process (`import { spawn } from ...`) see the refusals too.
syncBuiltinESMExports();
