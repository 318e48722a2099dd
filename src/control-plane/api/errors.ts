import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { DenvError, messageOf } from '../../contracts/errors.js';

/** Every error leaves as `{"error": {code, message}}` with the catalogue's status. */
export function errorHandler(log: (line: string) => void) {
  return (err: FastifyError | Error, _req: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof DenvError) return reply.status(err.status).send({ error: { code: err.code, message: err.message } });
    const fe = err as FastifyError;
    if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) {
      const message = fe.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' ? 'send the body as application/json' : fe.message;
      return reply.status(fe.statusCode).send({ error: { code: fe.statusCode === 404 ? 'NOT_FOUND' : fe.statusCode === 413 ? 'PAYLOAD_TOO_LARGE' : 'BAD_REQUEST', message } });
    }
    log(`api: ${err.stack ?? messageOf(err)}`);
    return reply.status(500).send({ error: { code: 'INTERNAL', message: 'internal error; see the control plane log' } });
  };
}
