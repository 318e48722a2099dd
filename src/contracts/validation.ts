import { z } from 'zod';
import { DenvError, type ErrorCode } from './errors.js';

/** `services.web.healthcheck.test: expected array` for the first problem of a zod error. */
export function describeZodError(error: z.ZodError, root = ''): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => {
      const path = [root, ...issue.path.map(String)].filter((p) => p !== '').join('.');
      let message = issue.message;
      if (issue.code === 'unrecognized_keys') {
        message = `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`;
      }
      // A record's key refused by its schema: zod says "Invalid key in record"; the key schema's own message says why.
      if (issue.code === 'invalid_key' && issue.issues[0]) message = issue.issues[0].message;
      return path ? `${path}: ${message}` : message;
    })
    .join('; ');
}

/** Parse or throw a DenvError (400) naming the path of the problem. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  value: unknown,
  code: ErrorCode = 'BAD_REQUEST',
  root = '',
): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new DenvError(code, describeZodError(result.error, root));
  return result.data;
}
