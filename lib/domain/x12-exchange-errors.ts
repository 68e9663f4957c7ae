import { Schema } from "effect"

/** Failures of the clearinghouse exchange's use cases (the X12 core's own are in lib/x12/errors.ts). */

/** An export needs the workspace's clearinghouse settings, and it has none. */
export class ClearinghouseNotConfigured extends Schema.TaggedError<ClearinghouseNotConfigured>()("ClearinghouseNotConfigured", {}) {
  override get message() {
    return "This workspace has no clearinghouse settings: PUT /api/workspace/clearinghouse first"
  }
}

/** Reading the settings of a workspace that has none. */
export class ClearinghouseSettingsNotFound extends Schema.TaggedError<ClearinghouseSettingsNotFound>()("ClearinghouseSettingsNotFound", {}) {
  override get message() {
    return "This workspace has no clearinghouse settings"
  }
}

/** Some claims of a batch cannot move to submitted_to_payer; each is listed. */
export class BatchTransitionsRefused extends Schema.TaggedError<BatchTransitionsRefused>()("BatchTransitionsRefused", {
  claims: Schema.Array(Schema.Struct({ claim_id: Schema.String, from: Schema.String, allowed: Schema.Array(Schema.String) }))
}) {
  override get message() {
    return `${this.claims.length} claim(s) cannot move to submitted_to_payer`
  }
}

export class X12BatchNotFound extends Schema.TaggedError<X12BatchNotFound>()("X12BatchNotFound", { id: Schema.String }) {
  override get message() {
    return "No such 837P batch in this workspace"
  }
}

export class X12FileNotFound extends Schema.TaggedError<X12FileNotFound>()("X12FileNotFound", { id: Schema.String }) {
  override get message() {
    return "No such X12 file in this workspace"
  }
}

/** The control number counter reached ISA13's nine digits. */
export class ControlNumbersExhausted extends Schema.TaggedError<ControlNumbersExhausted>()("ControlNumbersExhausted", {}) {
  override get message() {
    return "This workspace has used every interchange control number (999999999)"
  }
}
