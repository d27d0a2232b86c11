import type { Handler } from './handler.js'

/** `reload`: answers first, then reloads the frame's document. */
export const reload = ((_, context): undefined => {
  setTimeout(() => context.reload(), 0)
}) satisfies Handler<'reload'>
