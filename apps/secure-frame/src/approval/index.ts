export type { ApprovalRequest } from './request.js'
export { type RequestApprovalOptions, requestApproval } from './requestApproval.js'
