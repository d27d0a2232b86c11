/**
 * zod, configured once for every schema in this package: its tree-shakable
 * functional form (`zod/mini`), so a browser bundle carries only the parts
 * its schemas use, and jitless, so parsers never call `new Function` and the
 * secure frame's CSP (no 'unsafe-eval') holds. Schema modules import `z` from
 * here, never from 'zod' directly. Mini and classic zod share one core: the
 * API's classic schemas compose these.
 */
import { z } from 'zod/mini'

z.config({ jitless: true, ...z.locales.en() })

export { z }
