import { platformCommand } from './platform';

/** `sluice demo`: placeholder until the orchestrator lands; starts the platform. */
export async function demoCommand(argv: string[]): Promise<number> {
  return platformCommand(argv);
}
