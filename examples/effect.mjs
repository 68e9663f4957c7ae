import { Effect } from "effect"
import { changeClaimStatus, createEncounter, createWorkspace, getEncounter, listEvents, memoryLayer } from "encounterd"

const program = Effect.gen(function* () {
  const ws = yield* createWorkspace("clinic-a", "Clinic A")
  const payload = {
    external_id: "visit-1001",
    patient_authorized_release: true,
    benefits_assigned_to_provider: true,
    provider_accepts_assignment: true,
    billable_status: "BILLABLE",
    responsible_party: "SELF_PAY",
    place_of_service_code: "11",
    patient: {
      external_id: "pt-1", first_name: "Avery", last_name: "Example", gender: "female", date_of_birth: "1984-03-27",
      address: { address1: "100 Example St", city: "Boise", state: "ID", zip_code: "83702" }
    },
    billing_provider: {
      organization_name: "Example Clinic", npi: "1234567893", tax_id: "123456789",
      address: { address1: "200 Fixture Ave", city: "Boise", state: "ID", zip_code: "83702", zip_plus_four_code: "1234" }
    },
    rendering_provider: { npi: "1234567893", first_name: "Quinn", last_name: "Example" },
    diagnoses: [{ code_type: "ABK", code: "J01.90" }],
    service_lines: [{ procedure_code: "99213", quantity: 1, units: "UN", diagnosis_pointers: [0], charge_amount_cents: 12500 }]
  }
  const created = yield* createEncounter(ws.id, payload, { source: "my-ehr" })
  const again = yield* createEncounter(ws.id, payload)
  const { claim } = yield* getEncounter(ws.id, created.encounter_id)
  yield* changeClaimStatus(ws.id, claim.id, "submitted_to_payer")
  const events = yield* listEvents(ws.id, {})
  return { duplicate: again.duplicate, events: events.items.map((e) => e.event_type) }
})

const result = await Effect.runPromise(Effect.provide(program, memoryLayer))
console.log(JSON.stringify(result))
