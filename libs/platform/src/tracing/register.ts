/**
 * `node --import @gfts/platform/tracing src/server.ts`: starts OpenTelemetry tracing before
 * the service's modules load, when an OTLP endpoint is configured (docs/operations.md,
 * "Tracing"). Without one it imports nothing more and the process runs as without it.
 */
import { readTracingSettings, TracingConfigError } from './settings.ts';
import { markTracingStarted } from './state.ts';

let settings;
try {
  settings = readTracingSettings(process.env, process.argv[1]);
} catch (error) {
  if (!(error instanceof TracingConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
if (settings) {
  const { startTracingSdk } = await import('./sdk.ts');
  markTracingStarted(startTracingSdk(settings));
}
