import type { Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { redactUrl } from '../redact-url.ts';

/** The attributes that hold a URL or its query, in the HTTP instrumentations' old and new conventions. */
const URL_ATTRIBUTES = ['url.full', 'url.query', 'http.url', 'http.target'] as const;

/**
 * Redacts what the access lines redact (redact-url.ts) in every span's URL attributes as it
 * starts, whichever instrumentation made it: the gateway's client spans to the services
 * carried the whole query, a search's display name included (until 2026-11-29).
 */
export class RedactingSpanProcessor implements SpanProcessor {
  onStart(span: Span): void {
    for (const key of URL_ATTRIBUTES) {
      const value = span.attributes[key];
      if (typeof value !== 'string') continue;
      // a query alone (`url.query`) is read as one
      const redacted = key === 'url.query' && !/^[?#]/.test(value) ? redactUrl(`?${value}`).slice(1) : redactUrl(value);
      if (redacted !== value) span.setAttribute(key, redacted);
    }
  }

  onEnd(): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
