/**
 * zod, configured once for every schema in this package: jitless, so parsers
 * never call `new Function` and the secure frame's CSP (no 'unsafe-eval')
 * holds. Schema modules import `z` from here, never from 'zod' directly.
 */
import { z } from 'zod'

z.config({ jitless: true })

export { z }
