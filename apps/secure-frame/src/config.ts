/**
 * Build-time configuration of the frame, fixed when Vite builds it: nothing
 * here can be changed by the page that embeds the frame. An unset or empty
 * variable means the dev default.
 */
import { version as packageVersion } from '../package.json'

/** The only origin whose handshake is accepted (SECURITY.md 1). */
export const widgetOrigin: string =
  import.meta.env.VITE_WIDGET_ORIGIN || 'http://widget.localhost:5171'

/** The API as the browser sees it; the CSP's `connect-src` names the same origin. */
export const apiUrl: string = import.meta.env.VITE_API_URL || 'http://api.localhost:5173'

/** The frame's version, answered to `ping`. */
export const version: string = packageVersion
