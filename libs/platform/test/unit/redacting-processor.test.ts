import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, describe, expect, it } from 'vitest';
import { RedactingSpanProcessor } from '../../src/tracing/redacting-processor.ts';

describe('RedactingSpanProcessor', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new RedactingSpanProcessor(), new SimpleSpanProcessor({ exporter })] });
  afterAll(() => provider.shutdown());

  it('redacts a search text and a ticket in every URL attribute a client span starts with, and leaves the rest', () => {
    const span = provider.getTracer('test').startSpan('GET', {
      attributes: {
        'url.full': 'http://friendship:8081/api/v1/friendship/search?displayName=Mona&limit=5',
        'url.query': '?displayName=Mona',
        'http.url': 'http://notifications:8083/live?ticket=abc&since=1',
        'http.target': '/api/v1/friendship/search?displayName=Mona',
        'url.path': '/api/v1/friendship/search',
        'server.port': 8081,
      },
    });
    span.end();
    const [ended] = exporter.getFinishedSpans();
    expect(ended!.attributes).toEqual({
      'url.full': 'http://friendship:8081/api/v1/friendship/search?displayName=[redacted]&limit=5',
      'url.query': '?displayName=[redacted]',
      'http.url': 'http://notifications:8083/live?ticket=[redacted]&since=1',
      'http.target': '/api/v1/friendship/search?displayName=[redacted]',
      'url.path': '/api/v1/friendship/search',
      'server.port': 8081,
    });
  });

  it('reads a query without its "?" as a query', () => {
    exporter.reset();
    provider.getTracer('test').startSpan('GET', { attributes: { 'url.query': 'displayName=Mona&limit=5' } }).end();
    expect(exporter.getFinishedSpans()[0]!.attributes['url.query']).toBe('displayName=[redacted]&limit=5');
  });
});
