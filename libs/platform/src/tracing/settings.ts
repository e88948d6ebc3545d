/**
 * Tracing configuration from the standard OpenTelemetry variables. Pure: nothing of the
 * SDK is loaded to decide, so a process without an OTLP endpoint pays nothing.
 */

type Env = Record<string, string | undefined>;

/**
 * Every variable a deployment may set for tracing: those read here, and those the OTLP
 * exporter and the resource detector read themselves (deploy/tools/check_deploy.py takes
 * this list as what the services accept).
 */
export const TRACING_VARIABLES = [
  'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_PROTOCOL', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL',
  'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_EXPORTER_OTLP_TIMEOUT', 'OTEL_EXPORTER_OTLP_TRACES_TIMEOUT',
  'OTEL_EXPORTER_OTLP_COMPRESSION', 'OTEL_EXPORTER_OTLP_TRACES_COMPRESSION', 'OTEL_EXPORTER_OTLP_CERTIFICATE', 'OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE',
  'OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE', 'OTEL_EXPORTER_OTLP_TRACES_CLIENT_CERTIFICATE', 'OTEL_EXPORTER_OTLP_CLIENT_KEY', 'OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY',
  'OTEL_SDK_DISABLED', 'OTEL_TRACES_EXPORTER', 'OTEL_TRACES_SAMPLER', 'OTEL_TRACES_SAMPLER_ARG', 'OTEL_SERVICE_NAME', 'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_BSP_SCHEDULE_DELAY', 'OTEL_BSP_MAX_QUEUE_SIZE', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', 'OTEL_BSP_EXPORT_TIMEOUT',
] as const;

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export type SamplerName =
  | 'always_on'
  | 'always_off'
  | 'traceidratio'
  | 'parentbased_always_on'
  | 'parentbased_always_off'
  | 'parentbased_traceidratio';

export interface TracingSettings {
  serviceName: string;
  protocol: OtlpProtocol;
  sampler: { name: SamplerName; ratio: number };
  batch: { scheduledDelayMillis?: number; maxQueueSize?: number; maxExportBatchSize?: number; exportTimeoutMillis?: number };
}

const SAMPLERS = new Set<string>(['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio']);
const PROTOCOLS = new Set<string>(['http/protobuf', 'http/json']);

const set = (value: string | undefined) => (value !== undefined && value.trim() !== '' ? value.trim() : undefined);

function positiveInteger(env: Env, name: string, problems: string[]): number | undefined {
  const raw = set(env[name]);
  if (raw === undefined) return undefined;
  // decimal digits only, as every other setting (loadConfig): Number() takes 0x10, 1e3 and 5000.0
  const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value <= 0) {
    problems.push(`${name} must be a positive integer (got ${JSON.stringify(raw)})`);
    return undefined;
  }
  return value;
}

export class TracingConfigError extends Error {
  constructor(problems: string[]) {
    super(`invalid tracing configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'TracingConfigError';
  }
}

/**
 * The service name when OTEL_SERVICE_NAME does not give one: the folder of the entry
 * script's package (`services/<name>/src/server.ts` -> `<name>`).
 */
export function serviceNameOf(entryScript: string | undefined): string {
  const match = /[\\/]([^\\/]+)[\\/]src[\\/][^\\/]+$/.exec(entryScript ?? '');
  return match ? match[1]! : 'unknown_service:node';
}

/**
 * undefined (tracing off) unless an OTLP endpoint is set (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none
 * turn it off even then. A wrong value is an error naming every wrong setting.
 */
export function readTracingSettings(env: Env, entryScript?: string): TracingSettings | undefined {
  const endpoint = set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ?? set(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (endpoint === undefined) return undefined;
  if (set(env.OTEL_SDK_DISABLED)?.toLowerCase() === 'true') return undefined;
  const problems: string[] = [];
  const exporter = set(env.OTEL_TRACES_EXPORTER)?.toLowerCase();
  if (exporter === 'none') return undefined;
  if (exporter !== undefined && exporter !== 'otlp') problems.push(`OTEL_TRACES_EXPORTER must be otlp or none (got ${JSON.stringify(exporter)})`);

  const protocol = set(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? set(env.OTEL_EXPORTER_OTLP_PROTOCOL) ?? 'http/protobuf';
  if (!PROTOCOLS.has(protocol)) problems.push(`OTEL_EXPORTER_OTLP_PROTOCOL must be http/protobuf or http/json (got ${JSON.stringify(protocol)}; grpc is not bundled)`);

  const samplerName = set(env.OTEL_TRACES_SAMPLER)?.toLowerCase() ?? 'parentbased_always_on';
  if (!SAMPLERS.has(samplerName)) problems.push(`OTEL_TRACES_SAMPLER must be one of ${[...SAMPLERS].join(', ')} (got ${JSON.stringify(samplerName)})`);
  let ratio = 1;
  const rawRatio = set(env.OTEL_TRACES_SAMPLER_ARG);
  if (samplerName.endsWith('traceidratio') && rawRatio !== undefined) {
    ratio = Number(rawRatio);
    if (!(ratio >= 0 && ratio <= 1)) problems.push(`OTEL_TRACES_SAMPLER_ARG must be a ratio from 0 to 1 (got ${JSON.stringify(rawRatio)})`);
  }

  const batch = {
    scheduledDelayMillis: positiveInteger(env, 'OTEL_BSP_SCHEDULE_DELAY', problems),
    maxQueueSize: positiveInteger(env, 'OTEL_BSP_MAX_QUEUE_SIZE', problems),
    maxExportBatchSize: positiveInteger(env, 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE', problems),
    exportTimeoutMillis: positiveInteger(env, 'OTEL_BSP_EXPORT_TIMEOUT', problems),
  };
  if (problems.length > 0) throw new TracingConfigError(problems);
  return {
    serviceName: set(env.OTEL_SERVICE_NAME) ?? serviceNameOf(entryScript),
    protocol: protocol as OtlpProtocol,
    sampler: { name: samplerName as SamplerName, ratio },
    batch: Object.fromEntries(Object.entries(batch).filter(([, v]) => v !== undefined)),
  };
}
