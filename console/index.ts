/**
 * The web console: batches, scalers, endpoints and jobs in a browser, server-rendered with hono,
 * live through htmx, charts with uPlot (docs/console.md). A client of sluice like the CLI: it reads
 * and acts through the library (client/) and the results store, never the platform's internals.
 */
export { startConsole, type ConsoleOptions, type ConsoleServer } from './server';
export { type ConsoleSources } from './sources';
