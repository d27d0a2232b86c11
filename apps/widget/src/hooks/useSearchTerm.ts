import { debounceDefault } from '@porthole/protocol/Constants'
import { shownSearch } from '../lib/data/explorer.js'
import { useDebouncedValue } from './useDebouncedValue.js'

/**
 * The wallet search to show for what is typed: '' under 2 characters (at
 * once), the term once the input has settled on it for 500 ms, and
 * `undefined` while it has not (the view waits rather than show results for
 * another term).
 */
export function useSearchTerm(input: string): string | undefined {
  const debounced = useDebouncedValue(input, debounceDefault)
  return shownSearch(input, debounced)
}
