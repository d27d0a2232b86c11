/**
 * Build-time configuration of the frame, fixed when Vite builds it: nothing
 * here can be changed by the page that embeds the frame. The build
 * (vite.config.ts) always sets both: an unset or empty variable means the dev
 * origin, taken from the dev stack's one definition of them.
 */
import { version as packageVersion } from '../../package.json'

/** The only origin whose handshake is accepted (SECURITY.md 1). */
export const widgetOrigin: string = import.meta.env.VITE_WIDGET_ORIGIN ?? ''

/** The API as the browser sees it; the CSP's `connect-src` names the same origin. */
export const apiUrl: string = import.meta.env.VITE_API_URL ?? ''

/** The frame's version, answered to `ping`. */
export const version: string = packageVersion
