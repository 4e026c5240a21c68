import type { FastifyInstance } from 'fastify';
import { ApiError, badRequest } from '../errors/api.error.js';

/**
 * Body parsing: JSON only. An empty body is no body (the Ruby client sends
 * `Content-Type: application/json` with nothing on GET and DELETE); malformed
 * JSON is a 400 that does not quote the body (it could hold a token).
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/(.+\+)?json/i, { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      // The reviver costs a call per key: only texts that could hold the key (spelled out, or with
      // escapes such as "\u005f_proto__") pay it.
      const risky = text.includes('__proto__') || text.includes('\\u');
      done(null, risky ? JSON.parse(text, refuseProto) : JSON.parse(text));
    } catch (error) {
      done(error instanceof ApiError ? error : badRequest('bad_json', 'the request body is not valid JSON'));
    }
  });
  app.addContentTypeParser('*', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') return done(null, undefined);
    const type = String(request.headers['content-type'] ?? '').split(';')[0];
    done(new ApiError(415, 'unsupported_media_type', `send the body as application/json, not ${type}`));
  });
}

function refuseProto(key: string, value: unknown): unknown {
  if (key === '__proto__') {
    throw badRequest('bad_json', 'the request body must not have a "__proto__" key');
  }
  return value;
}
