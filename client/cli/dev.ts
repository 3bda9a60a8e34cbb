import { parseArgs } from 'node:util';
import { devBanner, startDevStack } from './dev/stack';
import { parsePort, untilSignal } from './platform';

/** `sluice dev`: Temporal dev server + platform + daemon in one process tree; Ctrl-C stops all. */
export async function devCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { port: { type: 'string' }, 'temporal-port': { type: 'string' }, 'daemon-port': { type: 'string' }, 'data-dir': { type: 'string' }, 'api-key': { type: 'string' } },
  });
  const stack = await startDevStack({
    port: parsePort(values.port, 8080),
    temporalPort: parsePort(values['temporal-port'], 7233),
    daemonPort: parsePort(values['daemon-port'], 8288),
    ...(values['data-dir'] ? { dataDir: values['data-dir'] } : {}),
    ...(values['api-key'] ? { apiKey: values['api-key'] } : {}),
  });
  console.log(devBanner(stack));
  await Promise.race([untilSignal(), stack.daemon.done]);
  console.log('sluice dev: stopping');
  await stack.stop();
  return 0;
}
