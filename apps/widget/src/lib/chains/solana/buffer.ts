/**
 * spl-token (and its metadata package) use Node's global `Buffer`, which a
 * browser lacks: the `buffer` package (web3.js's own) stands in. `../index.ts`
 * loads this module before the adapter, so it runs before spl-token does.
 */
import { Buffer } from 'buffer'

const scope = globalThis as { Buffer?: unknown }
scope.Buffer ??= Buffer
