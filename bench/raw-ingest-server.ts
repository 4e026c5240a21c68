// The peer of the router's ingest in `npm run bench`: a bare Fastify endpoint
// that checks a Basic token and pushes the event's JSON onto a Redis list,
// run as its own process like the router. Listens on PORT; uses REDIS_URL and KEY.
import Fastify from 'fastify';
import { Redis } from 'ioredis';

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const key = process.env.KEY ?? 'bench-raw-ingest';
const expected = `Basic ${Buffer.from('bench-token:x').toString('base64')}`;
const app = Fastify();
app.post<{ Params: { name: string } }>('/topics/:name', async (request, reply) => {
  if (request.headers.authorization !== expected) return reply.code(401).send();
  const body = request.body as { type: string; url: string; timestamp?: number | null; data?: object };
  const event = {
    topic: request.params.name,
    type: body.type,
    url: body.url,
    t: body.timestamp ?? Date.now(),
  };
  await redis.lpush(key, JSON.stringify(event));
  return reply.code(200).send();
});
app.get('/pulse', async (_request, reply) => reply.code(204).send());
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
const stop = () =>
  void app
    .close()
    .then(() => redis.quit())
    .then(() => process.exit(0));
process.on('SIGTERM', stop);
