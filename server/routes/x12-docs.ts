import { Schema } from "effect"
import { Page } from "../../lib/domain/page.js"
import { InboundClaimOutcome, InboundResult, X12Batch, X12File } from "../../lib/domain/x12-exchange.js"

/** An X12 interchange as text (segments end with `~`). */
export const X12Text = Schema.String.annotations({ description: "One X12 interchange (ISA … IEA)" })

export const X12BatchPage = Page(X12Batch).annotations({ identifier: "X12BatchPage" })
export const X12FilePage = Page(X12File).annotations({ identifier: "X12FilePage" })
export const X12OutcomePage = Page(InboundClaimOutcome).annotations({ identifier: "X12OutcomePage" })
export { InboundResult, X12Batch, X12File }

export const BatchRequest = Schema.Struct({
  claim_ids: Schema.Array(Schema.String).annotations({ description: "1 to 500 distinct claim ids of this workspace" })
}).annotations({ identifier: "X12BatchRequest" })
