/** Structured logs for every long-running part (platform, daemon, dev stack): pino, pretty on a terminal. */
import pino, { type Logger } from 'pino';

/** pino JSON logs; pretty when writing to a terminal (or when SLUICE_LOG_PRETTY=1). */
export function createLogger(name: string, level = process.env.SLUICE_LOG_LEVEL ?? 'info'): Logger {
  const pretty =
    process.env.SLUICE_LOG_PRETTY === '1' || (process.env.SLUICE_LOG_PRETTY !== '0' && process.stdout.isTTY);
  if (pretty) {
    return pino({
      name,
      level,
      transport: {
        target: 'pino-pretty',
        options: { colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' },
      },
    });
  }
  return pino({ name, level });
}
