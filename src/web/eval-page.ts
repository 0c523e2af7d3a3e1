/** The dashboard's eval page and its read-only API over the reports `revloop ui --eval` was given. */
import type { Context, Hono } from 'hono';
import type { EvalReports } from './eval-reports.js';

export function registerEvalRoutes(
  app: Hono,
  reports: EvalReports | null,
  page: (c: Context) => Response,
): void {
  app.get('/eval', page);
  app.get('/api/evals', (c) => c.json({ reports: reports?.list ?? [] }));
  app.get('/api/evals/:id', (c) => {
    const r = reports?.get(c.req.param('id'));
    return r ? c.json(r) : c.json({ error: 'no such eval report' }, 404);
  });
}
