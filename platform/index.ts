/** The local platform's public entry: what the commands that start it (and manage its users) need. */
export { startPlatform, type Platform, type PlatformOptions } from './platform';
export { openUsers, type User, type UserAdmin } from './control-plane/users';
export { AdjustableClock, systemClock, type Clock } from './core/clock';
export { parseFaultSpec, FAULT_SPEC_NAMES } from './faults/spec';
export { describeFaults, parseFaults, type Faults, type FaultsInput } from './faults/options';
export { FaultSpecError } from './faults/errors';
export { examplesUnreadable } from './control-plane/seed';
