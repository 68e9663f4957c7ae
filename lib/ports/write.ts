import type { EventRecord } from "../domain/event.js"
import type { EncounterId } from "../domain/ids.js"
import type { TaskCauseInput, TaskClosingInput } from "../domain/task.js"
import type { RecordOf, TableName, UniqueOf } from "./tables.js"

/**
 * A complete write, computed by a rule and executed atomically by an adapter: every step applies,
 * or (on the first refused precondition, or any failure) none does. The preconditions are part of
 * the write, so every adapter decides them the same way:
 * - an insert whose unique key is taken is refused with what `ifTaken` makes of the holder's id;
 * - an update applies only where the row still has the `where` values (compare-and-set); with
 *   `ifUnmatched` a miss refuses the write, without it the step changes nothing;
 * - an appended event takes the next place in its workspace's feed, recorded no earlier than the
 *   event before it (`recordedAt`); the encounter it touches takes that time as `last_event_at`,
 *   with `touchAlso` in the same compare-and-set update.
 */
export interface Write<Refusal = never> {
  /** What the write does, for errors and metrics (`createEncounter`, `changeClaimStatus`, ...). */
  readonly operation: string
  readonly steps: ReadonlyArray<Step<Refusal>>
  /**
   * Causes of work on claims (the codes, file and text of a rejection; a follow-up): the commit
   * path makes or adds to their tasks in the same write (`rules/task-steps.ts`).
   */
  readonly causes?: ReadonlyArray<TaskCauseInput>
  /** Claims whose open tasks this write closes although they do not move (a corrected claim sent in their place). */
  readonly closings?: ReadonlyArray<TaskClosingInput>
  /**
   * The write records a refusal (a rejected request kept in the intake log): the request's audit
   * entry, when this write carries it (`rules/audit-carry.ts`), says `failed`, not `ok`.
   */
  readonly refusal?: true
}

/**
 * A write that went through the commit path (`lib/rules/commit.ts`), which adds the outbox
 * deliveries of its events: the only kind of write storage takes. Nothing else makes one.
 */
export interface CommittedWrite<Refusal = never> extends Write<Refusal> {
  readonly [Committed]: true
}
export declare const Committed: unique symbol

export type Step<R> = { readonly [T in TableName]: Insert<T, R> | Update<T, R> | Remove<T> }[TableName] | AppendEvent<R>

export interface Insert<T extends TableName, R> {
  readonly _tag: "Insert"
  readonly table: T
  readonly record: RecordOf<T>
  readonly ifTaken?: { readonly unique: UniqueOf<T>; readonly refuse: (holderId: string) => R }
}

export interface Update<T extends TableName, R> {
  readonly _tag: "Update"
  readonly table: T
  readonly id: string
  /** Further columns the row must still have (the workspace, the status read). */
  readonly where: Partial<RecordOf<T>>
  readonly set: Partial<RecordOf<T>>
  readonly ifUnmatched?: R
}

/** Deletes the row with this id where it still has the `where` values; a miss changes nothing. */
export interface Remove<T extends TableName> {
  readonly _tag: "Remove"
  readonly table: T
  readonly id: string
  readonly where: Partial<RecordOf<T>>
}

export interface AppendEvent<R = never> {
  readonly _tag: "AppendEvent"
  readonly event: EventRecord
  /** The encounter whose `last_event_at` becomes this event's recorded time. */
  readonly touch?: EncounterId
  /**
   * More of the touched encounter's row, changed in the same update: `set` as well as the time,
   * applied only where the row still has `where` (in the event's workspace); a miss refuses the
   * write with `ifUnmatched`.
   */
  readonly touchAlso?: TouchAlso<R>
}

export interface TouchAlso<R> {
  readonly where: Partial<RecordOf<"encounters">>
  readonly set: Partial<RecordOf<"encounters">>
  readonly ifUnmatched: R
}

export type WriteResult<R> = { readonly _tag: "Written" } | { readonly _tag: "Refused"; readonly refusal: R }

export const Written: WriteResult<never> = { _tag: "Written" }
export const refused = <R>(refusal: R): WriteResult<R> => ({ _tag: "Refused", refusal })

export const insert = <T extends TableName, R = never>(
  table: T,
  record: RecordOf<T>,
  ifTaken?: Insert<T, R>["ifTaken"]
): Insert<T, R> => (ifTaken === undefined ? { _tag: "Insert", table, record } : { _tag: "Insert", table, record, ifTaken })

export const update = <T extends TableName, R = never>(
  table: T,
  id: string,
  where: Partial<RecordOf<T>>,
  set: Partial<RecordOf<T>>,
  ifUnmatched?: R
): Update<T, R> =>
  ifUnmatched === undefined ? { _tag: "Update", table, id, where, set } : { _tag: "Update", table, id, where, set, ifUnmatched }

export const appendEvent = <R = never>(event: EventRecord, touch?: EncounterId, touchAlso?: TouchAlso<R>): AppendEvent<R> =>
  touch === undefined
    ? { _tag: "AppendEvent", event }
    : touchAlso === undefined
      ? { _tag: "AppendEvent", event, touch }
      : { _tag: "AppendEvent", event, touch, touchAlso }

export const remove = <T extends TableName>(table: T, id: string, where: Partial<RecordOf<T>>): Remove<T> => ({
  _tag: "Remove",
  table,
  id,
  where
})
