import { Schema } from "effect"
import { boundedList } from "../../lib/domain/bounded-list.js"
import { Page } from "../../lib/domain/page.js"
import { MAX_BATCH_CLAIMS } from "../../lib/rules/x12-export.js"
import { InboundClaimOutcome, InboundResult, X12Batch, X12File } from "../../lib/domain/x12-exchange.js"

/** An X12 interchange as text (segments end with `~`). */
export const X12Text = Schema.String.annotations({ description: "One X12 interchange (ISA … IEA)" })

export const X12BatchPage = Page(X12Batch).annotations({ identifier: "X12BatchPage" })
export const X12FilePage = Page(X12File).annotations({ identifier: "X12FilePage" })
export const X12OutcomePage = Page(InboundClaimOutcome).annotations({ identifier: "X12OutcomePage" })
export { InboundResult, X12Batch, X12File }

export const BatchRequest = Schema.Struct({
  // The rule checks 1 to MAX_BATCH_CLAIMS again (for library callers); here a longer list is refused before its entries are read.
  claim_ids: boundedList(Schema.String, MAX_BATCH_CLAIMS).annotations({
    description: `1 to ${MAX_BATCH_CLAIMS} distinct claim ids of this workspace`
  })
}).annotations({ identifier: "X12BatchRequest" })
