import { Layer } from "effect"
import { MemoryStorage } from "./adapters/memory/storage.js"
import { SqlStorage } from "./adapters/sql/storage.js"
import { Clock, Ids } from "./ports/clock.js"

/** What every operation of the library needs: storage, clock and id generation. */
export const liveServices = Layer.mergeAll(Clock.live, Ids.live)

/** The whole service on fresh in-memory storage (for tests, also embedders' tests). */
export const memoryLayer = Layer.mergeAll(MemoryStorage.layer, liveServices)

/** The whole service on the SqlClient provided to it. */
export const sqlLayer = Layer.mergeAll(SqlStorage.layer, liveServices)
