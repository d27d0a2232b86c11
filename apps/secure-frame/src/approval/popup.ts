/** The approval popup's entry (`approve.html`); see `popupPage.ts`. */
import '../style.css'
import { startApprovalPopup } from './popupPage.js'

startApprovalPopup(window)
