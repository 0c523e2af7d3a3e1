/**
 * Imported before anything that builds a zod schema: without `jitless`, zod
 * probes `new Function`, which the page's CSP forbids and reports as a violation.
 */
import { z } from 'zod';

z.config({ jitless: true });
