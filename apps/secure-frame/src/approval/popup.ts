/** The approval popup's entry (`approve.html`); see `popupPage.ts`. */
import '../lib/style.css'
import { startApprovalPopup } from './popupPage.js'

startApprovalPopup(window)
