import { debounceDefault } from '@porthole/protocol/Constants'
import { searchTerm } from '../lib/explorer.js'
import { useDebouncedValue } from './useDebouncedValue.js'

/** The wallet search to run for what is typed: '' under 2 characters (at once), else the input once it settles for 500 ms. */
export function useSearchTerm(input: string): string {
  const debounced = useDebouncedValue(input, debounceDefault)
  return searchTerm(input) === '' ? '' : searchTerm(debounced)
}
