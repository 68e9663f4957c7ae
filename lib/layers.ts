import { Layer } from "effect"
import { MemoryStorage } from "./adapters/memory/storage.js"
import { SqlStorage } from "./adapters/sql/storage.js"
import { Clock, Ids } from "./ports/clock.js"
import { ephemeralWebhookSettings } from "./webhooks/settings.js"
import { DeliverySignal } from "./webhooks/signal.js"
import { ValidBodies } from "./rules/valid-bodies.js"
import { StatusCheckSignal } from "./rules/status-check-signal.js"

/**
 * What every operation of the library needs: clock and id generation; the in-process nudge from
 * writes that queued webhook deliveries (or `core` status checks) to their worker, when one runs; and intake's memory of
 * bodies found valid (replays of the same bytes skip validation).
 */
export const liveServices = Layer.mergeAll(Clock.live, Ids.live, DeliverySignal.live, StatusCheckSignal.live, ValidBodies.live)

/**
 * The whole service on fresh in-memory storage (for tests, also embedders' tests), with webhook
 * settings whose sealing key lives as long as the layer (private targets refused).
 */
export const memoryLayer = Layer.mergeAll(MemoryStorage.layer, liveServices, ephemeralWebhookSettings())

/** The whole service on the SqlClient provided to it. */
export const sqlLayer = Layer.mergeAll(SqlStorage.layer, liveServices)
