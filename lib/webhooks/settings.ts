import { Context, Effect, Layer, Option } from "effect"
import type { StorageError } from "../domain/errors.js"
import { WebhooksUnavailable } from "../domain/webhook-errors.js"
import type { Storage } from "../ports/storage.js"
import { DEFAULT_TIMEOUT_MS } from "./attempt.js"
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule, type RetrySchedule } from "./schedule.js"
import { newSecretBoxKey, type SecretBoxKey } from "./secret-box.js"
import { defaultKeyFile, loadStoreKey, type SecretKeyError } from "./secret-key.js"
import { sealedSecretKeyIds } from "./stored-secrets.js"
import type { Resolve } from "./targets.js"

/**
 * What push delivery needs from its host: the key that seals signing secrets, whether private
 * targets are allowed, the retry schedule and the attempt timeout. The rules that manage
 * endpoints and the delivery worker read it; `serve` builds it from its flags.
 */
export interface WebhookSettingsShape {
  /** None when the server has no key (PostgreSQL without `--webhook-secret-key-file`). */
  readonly key: Option.Option<SecretBoxKey>
  readonly allowPrivate: boolean
  readonly schedule: RetrySchedule
  readonly timeoutMs: number
  /** Sent as `user-agent: encounterd/<version>`. */
  readonly version: string
  /** Host name resolution for the target checks; the system resolver when absent. */
  readonly resolve?: Resolve
  /** Endpoints one workspace may register (`--webhook-max-endpoints`); `DEFAULT_MAX_ENDPOINTS` when absent. */
  readonly maxEndpoints?: number
}

/** Endpoints per workspace unless the server says otherwise. */
export const DEFAULT_MAX_ENDPOINTS = 50

export class WebhookSettings extends Context.Tag("encounters/WebhookSettings")<WebhookSettings, WebhookSettingsShape>() {}

export const PACKAGE_VERSION = "0.1.0"

const defaultSchedule: RetrySchedule = Option.getOrThrow(Option.getRight(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)))

export interface WebhookSettingsOptions {
  /** The database setting: a SQLite file's key lives beside it (see secret-key.ts). */
  readonly db?: string
  /** The key file; required on PostgreSQL for webhooks to work (every instance the same file). */
  readonly keyFile?: string
  readonly allowPrivate?: boolean
  readonly schedule?: RetrySchedule
  readonly timeoutMs?: number
  readonly version?: string
  readonly resolve?: Resolve
  readonly maxEndpoints?: number
}

const shape = (key: Option.Option<SecretBoxKey>, o: WebhookSettingsOptions): WebhookSettingsShape => ({
  key,
  allowPrivate: o.allowPrivate ?? false,
  schedule: o.schedule ?? defaultSchedule,
  timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  version: o.version ?? PACKAGE_VERSION,
  maxEndpoints: o.maxEndpoints ?? DEFAULT_MAX_ENDPOINTS,
  ...(o.resolve !== undefined ? { resolve: o.resolve } : {})
})

/**
 * Settings with the key from `keyFile`, else the file beside a SQLite database. A missing file is
 * created (0600) with a new key only while the database holds no webhook endpoint; with endpoints,
 * whose secrets a new key could not open, it is refused (`SecretKeyError` naming the file). An
 * in-memory database (or none) gets a fresh key per process, PostgreSQL without a key file none.
 */
export const webhookSettingsLayer = (o: WebhookSettingsOptions = {}): Layer.Layer<WebhookSettings, SecretKeyError | StorageError, Storage> =>
  Layer.effect(
    WebhookSettings,
    Effect.gen(function* () {
      const file = o.keyFile ?? (o.db === undefined ? undefined : defaultKeyFile(o.db))
      if (file !== undefined) return shape(Option.some(yield* loadStoreKey(file, Effect.map(sealedSecretKeyIds, (ids) => ids.size > 0))), o)
      const postgres = o.db !== undefined && /^postgres(ql)?:\/\//.test(o.db)
      return shape(postgres ? Option.none() : Option.some(newSecretBoxKey()), o)
    })
  )

/** Fresh key, defaults (private targets refused): in-memory services and tests. */
export const ephemeralWebhookSettings = (o: Omit<WebhookSettingsOptions, "db" | "keyFile"> = {}): Layer.Layer<WebhookSettings> =>
  Layer.sync(WebhookSettings, () => shape(Option.some(newSecretBoxKey()), o))

/** The sealing key, or the typed refusal that names the missing flag. */
export const requireKey = (settings: WebhookSettingsShape): Effect.Effect<SecretBoxKey, WebhooksUnavailable> =>
  Option.match(settings.key, {
    onSome: Effect.succeed,
    onNone: () =>
      Effect.fail(
        new WebhooksUnavailable({
          reason: "Webhooks need a secret key file on PostgreSQL: start the server with --webhook-secret-key-file"
        })
      )
  })
