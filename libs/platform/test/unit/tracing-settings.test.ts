import { describe, expect, it } from 'vitest';
import { readTracingSettings, serviceNameOf } from '../../src/tracing/settings.ts';

const ENDPOINT = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };

describe('tracing settings from the standard OTEL_* variables', () => {
  it('is off without an OTLP endpoint, or when disabled or exporting nowhere', () => {
    expect(readTracingSettings({})).toBeUndefined();
    expect(readTracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toBeUndefined();
    expect(readTracingSettings({ ...ENDPOINT, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(readTracingSettings({ ...ENDPOINT, OTEL_TRACES_EXPORTER: 'none' })).toBeUndefined();
    // other signals' settings alone do not turn traces on
    expect(readTracingSettings({ OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
  });

  it('is on with either endpoint variable, protobuf and parent-based always-on by default', () => {
    for (const env of [ENDPOINT, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }]) {
      expect(readTracingSettings(env, '/app/services/tasks/src/server.ts')).toEqual({
        serviceName: 'tasks',
        protocol: 'http/protobuf',
        sampler: { name: 'parentbased_always_on', ratio: 1 },
        batch: {},
      });
    }
  });

  it('takes the protocol, sampler, ratio, batch settings and service name given', () => {
    expect(readTracingSettings({
      ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '200', OTEL_BSP_MAX_QUEUE_SIZE: '4096', OTEL_SERVICE_NAME: 'gfts-gateway',
    }, '/app/services/gateway/src/server.ts')).toEqual({
      serviceName: 'gfts-gateway',
      protocol: 'http/json',
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { scheduledDelayMillis: 200, maxQueueSize: 4096 },
    });
    // the traces-specific protocol wins over the general one
    expect(readTracingSettings({ ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json' })?.protocol).toBe('http/json');
  });

  it('names every wrong setting at once', () => {
    expect(() => readTracingSettings({
      ...ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_TRACES_SAMPLER: 'sometimes', OTEL_BSP_SCHEDULE_DELAY: '-5', OTEL_TRACES_EXPORTER: 'zipkin',
    })).toThrow(/OTEL_TRACES_EXPORTER[\s\S]*OTEL_EXPORTER_OTLP_PROTOCOL[\s\S]*OTEL_TRACES_SAMPLER[\s\S]*OTEL_BSP_SCHEDULE_DELAY/);
    expect(() => readTracingSettings({ ...ENDPOINT, OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });

  it('takes a batch size or delay in decimal digits only, as every other setting', () => {
    for (const raw of ['0x10', '1e3', '5000.0', ' 12abc']) {
      expect(() => readTracingSettings({ ...ENDPOINT, OTEL_BSP_MAX_QUEUE_SIZE: raw }), raw).toThrow(/OTEL_BSP_MAX_QUEUE_SIZE must be a positive integer/);
    }
    expect(readTracingSettings({ ...ENDPOINT, OTEL_BSP_MAX_QUEUE_SIZE: '2048' })?.batch.maxQueueSize).toBe(2048);
  });

  it('derives the service name from the entry script when OTEL_SERVICE_NAME is unset', () => {
    expect(serviceNameOf('/work/repo/services/friendship/src/server.ts')).toBe('friendship');
    expect(serviceNameOf('server.ts')).toBe('unknown_service:node');
    expect(serviceNameOf(undefined)).toBe('unknown_service:node');
  });
});
