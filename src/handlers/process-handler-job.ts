import type { Event } from '../bus/event.js';
import { describeError } from '../bus/logger.js';
import { type Dispatcher, retryJob } from './dispatcher.js';
import { firstAttemptOf, type HandlerJob } from './handler-job.js';
import { NonRetryableError } from './non-retryable.error.js';
import { UnknownHandlerError } from './unknown-handler.error.js';

/** The fields of a {@link HandlerJob} a transport stores with the job. */
export type HandlerJobData = Pick<HandlerJob, 'payload' | 'handler' | 'exhaustedError' | 'firstAttempt'>;

/**
 * Runs one async-handler or retry job. Throws to ask the transport for another
 * attempt; throws {@link NonRetryableError} when no attempt can succeed.
 * `attemptsMade` counts this job's earlier runs.
 */
export async function processHandlerJob(
  kind: HandlerJob['kind'],
  data: HandlerJobData,
  attemptsMade: number,
  dispatcher: Dispatcher,
  enqueue: (jobs: HandlerJob[]) => Promise<void>,
): Promise<void> {
  if (data.exhaustedError !== undefined) throw new NonRetryableError(data.exhaustedError);
  let event: Event;
  try {
    event = dispatcher.decode(data.payload);
  } catch (error) {
    throw new NonRetryableError(describeError(error).message, { cause: error });
  }
  const handler = data.handler;
  if (handler === undefined) throw new NonRetryableError('job names no handler');
  try {
    if (kind === 'async') {
      await dispatcher.runAsync(event, handler, attemptsMade + firstAttemptOf(kind, data));
      return;
    }
    const failure = await dispatcher.runSync(event, handler, attemptsMade + firstAttemptOf(kind, data));
    if (failure === undefined) return;
    if (failure.handler.name === handler) throw failure.error;
    // A later handler of the chain failed: it gets a retry job of its own.
    await enqueue([retryJob(event.id, data.payload, failure, 1)]);
  } catch (error) {
    if (error instanceof UnknownHandlerError) {
      throw new NonRetryableError(error.message, { cause: error });
    }
    throw error;
  }
}
