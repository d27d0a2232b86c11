/** A WalletConnect project id of the right shape that belongs to no one: the pages run offline. */
export const projectId = '00000000000000000000000000000000'
