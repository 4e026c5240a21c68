import type { FastifyInstance } from 'fastify';
import { ApiError, badRequest } from '../errors/api.error.js';

/**
 * Content types whose bodies are read as JSON: JSON itself, and, as
 * Routemaster reads every body as JSON whatever its type, `text/plain` and
 * form-encoded bodies (what `curl -d '{...}'` sends).
 */
const JSON_TYPES = /^(application\/(.+\+)?json|text\/plain|application\/x-www-form-urlencoded)\s*(;|$)/i;

/**
 * Body parsing: JSON, sent as JSON, text, a form, or with no content type.
 * An empty body is no body (the Ruby client sends `Content-Type:
 * application/json` with nothing on GET and DELETE); malformed JSON is a
 * 400 that does not quote the body (it could hold a token); another content
 * type is a 415.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(JSON_TYPES, { parseAs: 'string' }, (_request, body, done) => {
    parseJson(typeof body === 'string' ? body : body.toString('utf8'), done);
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    const type = String(request.headers['content-type'] ?? '').split(';')[0] ?? '';
    if (type.trim() === '') return parseJson(text, done);
    if (text === '') return done(null, undefined);
    done(
      new ApiError(
        415,
        'unsupported_media_type',
        `send the body as JSON (application/json; text/plain and form-encoded bodies holding JSON are read too), not ${type}`,
      ),
    );
  });
}

function parseJson(text: string, done: (error: Error | null, body?: unknown) => void): void {
  if (text.trim() === '') {
    done(null, undefined);
    return;
  }
  try {
    // The reviver costs a call per key: only texts that could hold the key (spelled out, or with
    // escapes such as "\u005f_proto__") pay it.
    const risky = text.includes('__proto__') || text.includes('\\u');
    done(null, risky ? JSON.parse(text, refuseProto) : JSON.parse(text));
  } catch (error) {
    done(error instanceof ApiError ? error : badRequest('bad_json', 'the request body is not valid JSON'));
  }
}

function refuseProto(key: string, value: unknown): unknown {
  if (key === '__proto__') {
    throw badRequest('bad_json', 'the request body must not have a "__proto__" key');
  }
  return value;
}
