import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler, AlwaysOnSampler, BatchSpanProcessor, ParentBasedSampler, TraceIdRatioBasedSampler, TracerProvider, type Sampler,
} from '@opentelemetry/sdk-trace';
import { RedactingSpanProcessor } from './redacting-processor.ts';
import type { TracingSettings } from './settings.ts';

function samplerOf({ name, ratio }: TracingSettings['sampler']): Sampler {
  const root = name.endsWith('always_off') ? new AlwaysOffSampler() : name.endsWith('traceidratio') ? new TraceIdRatioBasedSampler(ratio) : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/**
 * The SDK: W3C trace context, AsyncLocalStorage context, batched OTLP/HTTP export (endpoint,
 * headers, timeout and compression from the standard OTEL_EXPORTER_OTLP_* variables, read
 * by the exporter), and the instrumentations of the MongoDB driver (mongoose's) and of HTTP
 * clients: node:http (the gateway's reply-from proxies over it, for its request timeout) and
 * undici (fetch, and reply-from without that option). Server spans are ours, one per request
 * with its Fastify route (tracing/spans.ts), as are the NATS spans.
 * Returns the flush-and-stop function.
 */
export function startTracingSdk(settings: TracingSettings): () => Promise<void> {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  const exporter = settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (envDetector) win over the derived name
  const resource = resourceFromAttributes({ 'service.name': settings.serviceName }).merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({
    resource,
    sampler: samplerOf(settings.sampler),
    // the redaction first: the batch exports what the processors before it left
    spanProcessors: [new RedactingSpanProcessor(), new BatchSpanProcessor({ exporter, ...settings.batch })],
  });
  trace.setGlobalTracerProvider(provider);
  // Both patch on load (require hooks, diagnostics channels): created before the app's
  // modules load, which is why this runs from `node --import`. Spans only under a parent:
  // driver heartbeats and probe fetches stay out.
  new MongoDBInstrumentation({ requireParentSpan: true });
  new HttpInstrumentation({ disableIncomingRequestInstrumentation: true, requireParentforOutgoingSpans: true });
  new UndiciInstrumentation({ requireParentforSpans: true });
  return () => provider.shutdown();
}
