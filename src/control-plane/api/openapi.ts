import { z } from 'zod';
import type { RouteDef } from './route.js';

/** The OpenAPI 3.1 document, generated from the same zod schemas that validate requests. */
export function openApiDocument(routes: readonly RouteDef[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const errorSchema = {
    type: 'object',
    properties: { error: { type: 'object', properties: { code: { type: 'string' }, message: { type: 'string' } }, required: ['code', 'message'] } },
    required: ['error'],
  };
  for (const r of routes) {
    const path = r.url.replace(/:([a-zA-Z_]+)/g, '{$1}');
    const parameters: unknown[] = [...r.url.matchAll(/:([a-zA-Z_]+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
    if (r.query) {
      const js = z.toJSONSchema(r.query, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] };
      for (const [name, schema] of Object.entries(js.properties ?? {})) parameters.push({ name, in: 'query', required: js.required?.includes(name) ?? false, schema });
    }
    const op: Record<string, unknown> = {
      summary: r.summary,
      security: [{ bearer: [] }],
      parameters,
      responses: {
        [String(r.status ?? 200)]: { description: 'success' },
        default: { description: 'error', content: { 'application/json': { schema: errorSchema } } },
      },
    };
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: z.toJSONSchema(r.body, { io: 'input', unrepresentable: 'any' }) } } };
    (paths[path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: { title: 'denv API', version },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    paths,
  };
}
