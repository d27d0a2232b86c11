/** The chain-agnostic views after Connect, in one lazy chunk fetched once Connect has painted (see App.tsx). */
export { Activity } from './Activity.js'
export { AllWallets } from './AllWallets.js'
export { ConnectingExternal } from './ConnectingExternal.js'
export { Receive } from './Receive.js'
export { UpdateEmailPrimaryOtp, UpdateEmailSecondaryOtp, UpdateEmailWallet } from './UpdateEmail.js'
