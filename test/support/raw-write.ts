import type { StorageShape } from "../../lib/ports/storage.js"
import type { CommittedWrite, Write } from "../../lib/ports/write.js"

/**
 * A write handed to an adapter as it is, below the commit path (no outbox deliveries added): for
 * the adapter tests, which check how storage itself executes steps and preconditions.
 */
export const rawWrite = <R>(storage: StorageShape, write: Write<R>) => storage.write(write as CommittedWrite<R>)
