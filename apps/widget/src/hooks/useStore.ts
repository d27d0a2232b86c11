import { useSyncExternalStore } from 'react'
import { store, type WidgetState } from '../lib/state/store.js'

/** A slice of the widget's store; `select` must return a stored value or a primitive. */
export function useStore<slice>(select: (state: WidgetState) => slice): slice {
  return useSyncExternalStore(store.subscribe, () => select(store.getState()))
}
