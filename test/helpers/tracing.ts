import { context, type DiagLogger, DiagLogLevel, diag, type SpanContext, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, afterEach, beforeAll } from 'vitest';

/** What {@link traceBed} gives a test file: the finished spans and a tracer of the "application". */
export interface TraceBed {
  /** Every span ended since the test began. */
  spans(): ReadableSpan[];
  /** The ended spans named `name`. */
  named(name: string): ReadableSpan[];
  /** Runs `fn` in an active application span `name`; resolves to its span context and what `fn` returned. */
  inSpan<T>(name: string, fn: () => Promise<T>): Promise<{ span: SpanContext; result: T }>;
  /** The messages the api's `diag` logger got at debug level since the test began. */
  readonly debugLines: string[];
}

/**
 * Registers an OpenTelemetry SDK for the file, as a service would in its own
 * app: a `BasicTracerProvider` exporting to memory with a
 * `SimpleSpanProcessor`, and the `AsyncLocalStorageContextManager`. Spans and
 * debug lines are cleared after each test; everything is unregistered after the file.
 */
export function traceBed(): TraceBed {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const debugLines: string[] = [];
  const collect: DiagLogger = {
    debug: (message) => debugLines.push(message),
    verbose: () => {},
    info: () => {},
    warn: () => {},
    error: () => {},
  };
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    trace.setGlobalTracerProvider(provider);
    diag.setLogger(collect, DiagLogLevel.DEBUG);
  });
  afterEach(() => {
    exporter.reset();
    debugLines.length = 0;
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    diag.disable();
  });
  const app = trace.getTracer('test-app');
  return {
    spans: () => exporter.getFinishedSpans(),
    named: (name) => exporter.getFinishedSpans().filter((span) => span.name === name),
    inSpan: (name, fn) =>
      app.startActiveSpan(name, async (span) => {
        try {
          return { span: span.spanContext(), result: await fn() };
        } finally {
          span.end();
        }
      }),
    debugLines,
  };
}

/** The span id of `span`'s parent, `undefined` for a root span. */
export function parentIdOf(span: ReadableSpan): string | undefined {
  return span.parentSpanContext?.spanId;
}
