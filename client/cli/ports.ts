/** Checks, before anything starts, that the ports a command listens on are free (a clear error, not a stack trace). */
import { createServer } from 'node:net';
import { PortInUseError } from './errors';

/** A port a command is about to listen on, and how a person changes it. */
export interface PortClaim {
  port: number;
  /** What listens there, e.g. "the platform". */
  what: string;
  /** How to pick another, e.g. "choose another with --port". */
  change: string;
  /** @default '127.0.0.1' */
  host?: string;
}

function isFree(port: number, host: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', (err: NodeJS.ErrnoException) =>
      err.code === 'EADDRINUSE' || err.code === 'EACCES' ? resolve(false) : reject(err),
    );
    srv.listen(port, host, () => srv.close(() => resolve(true)));
  });
}

/** Throws {@link PortInUseError} for the first claimed port that is taken; port 0 (any) is always free. */
export async function assertPortsFree(claims: PortClaim[]): Promise<void> {
  for (const c of claims) {
    if (c.port === 0) continue;
    if (!(await isFree(c.port, c.host ?? '127.0.0.1'))) throw new PortInUseError(c.port, c.what, c.change);
  }
}

/** The Temporal runtime's metrics port (SLUICE_TEMPORAL_METRICS_PORT), which every command that runs a daemon opens. */
export const temporalMetricsClaim = (port: number): PortClaim => ({
  port,
  what: "Temporal's runtime metrics",
  change: 'set SLUICE_TEMPORAL_METRICS_PORT to another port (0 turns them off)',
});
