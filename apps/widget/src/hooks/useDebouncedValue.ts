import { useEffect, useState } from 'react'
import { debounce } from '../lib/timing.js'

/** `value`, once it has stayed the same for `ms`. */
export function useDebouncedValue<value>(value: value, ms: number): value {
  const [debounced, setDebounced] = useState(value)
  useEffect(() => {
    const update = debounce(setDebounced, ms)
    update(value)
    return update.cancel
  }, [value, ms])
  return debounced
}
