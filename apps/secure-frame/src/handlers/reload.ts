import type { Context } from '../wallet/session.js'

/** `reload`: answers first, then reloads the frame's document. */
export function reload(context: Context): undefined {
  setTimeout(() => context.reload(), 0)
}
