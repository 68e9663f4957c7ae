import { createHash } from "node:crypto"
import type { SFTPWrapper } from "ssh2"
import { Data, Effect, type Scope } from "effect"

/**
 * The SFTP side of a clearinghouse connection, on ssh2 (pure JavaScript: it runs under Bun and in
 * the compiled binary). A session is pinned to the host key's SHA-256 fingerprint: any other key
 * is refused before authenticating (no trust on first use). Every operation is bounded by the read
 * timeout (no progress for that long ends the session); the caller bounds the whole session.
 * Errors never carry the password or key.
 */

export type SftpErrorCode =
  | "fingerprint_mismatch"
  | "auth_failed"
  | "connect_failed"
  | "timeout"
  | "connection_lost"
  | "file_too_large"
  | "sftp_error"
  | "secret_unavailable"

export class SftpError extends Data.TaggedError("SftpError")<{ readonly code: SftpErrorCode; readonly reason: string }> {
  override get message() {
    return `${this.code}: ${this.reason}`
  }
}

export interface SftpTarget {
  readonly host: string
  readonly port: number
  readonly username: string
  readonly password?: string | undefined
  readonly privateKey?: string | undefined
  /** `SHA256:` and the unpadded base64 of the host key's SHA-256, as `ssh-keygen -l` prints it. */
  readonly fingerprint: string
}

export interface SftpTimeouts {
  /** To connect, agree keys and authenticate. */
  readonly connectMs: number
  /** One operation (a listing, a chunk read or written) without an answer for this long ends the session. */
  readonly readMs: number
}

export interface RemoteFile {
  readonly name: string
  readonly size: number
  /** Seconds since the epoch, as the server says. */
  readonly mtime: number
}

export interface SftpSession {
  /** The regular files of a folder (names starting with a dot left out: files being written). */
  readonly list: (dir: string) => Effect.Effect<ReadonlyArray<RemoteFile>, SftpError>
  /** A file's bytes; more than `maxBytes` is `file_too_large`, found before or while reading. */
  readonly read: (path: string, maxBytes: number) => Effect.Effect<Uint8Array, SftpError>
  /** Writes `.name.part` in `dir`, then renames it to `name` (replacing one there), so no reader sees half a file. */
  readonly writeAtomically: (dir: string, name: string, bytes: Uint8Array) => Effect.Effect<void, SftpError>
  /** Renames (moves) a file, replacing one at `to`. */
  readonly move: (from: string, to: string) => Effect.Effect<void, SftpError>
}

/** OpenSSH's fingerprint of a host key (its wire form). */
export const fingerprintOf = (key: Uint8Array): string =>
  `SHA256:${createHash("sha256").update(key).digest("base64").replace(/=+$/, "")}`

export const joinRemote = (dir: string, name: string): string => (dir.endsWith("/") ? `${dir}${name}` : `${dir}/${name}`)

const CHUNK = 32 * 1024

/**
 * ssh2, loaded when the first session opens rather than with the server: on load it instantiates
 * its Poly1305 WebAssembly module, whose 16 MiB memory (and as much again the engine counted as
 * external) stayed in every process, clearinghouse connections or not. The collector's budgets
 * grow with all the memory it counts, so it raised the server's peak under load by tens of MiB
 * (bench/RESULTS.md, "Peak memory"). ssh2 uses that module (chacha20-poly1305) without waiting
 * for it to be ready, which a load at start hid: the session waits for it here.
 */
const loadSsh2 = async () => {
  const ssh2 = await import("ssh2")
  await (await import("ssh2/lib/protocol/crypto.js")).default.init
  return ssh2
}

const lost = (e: Error | undefined, what: string): SftpError => {
  const text = e?.message ?? "failed"
  return /no response|not connected|connection (lost|closed)|socket|ECONNRESET|EPIPE|closed/i.test(text)
    ? new SftpError({ code: "connection_lost", reason: `${what}: ${text}` })
    : new SftpError({ code: "sftp_error", reason: `${what}: ${text}` })
}

/**
 * Opens a session (connect, host key check, authentication, the sftp subsystem); closed when the
 * scope closes. Failures: `fingerprint_mismatch`, `auth_failed`, `connect_failed`, `timeout`.
 */
export const openSftpSession = (target: SftpTarget, timeouts: SftpTimeouts): Effect.Effect<SftpSession, SftpError, Scope.Scope> =>
  Effect.gen(function* () {
    const { Client } = yield* Effect.tryPromise({
      try: loadSsh2,
      catch: (e) => new SftpError({ code: "connect_failed", reason: `the SSH client did not load: ${e instanceof Error ? e.message : String(e)}` })
    })
    const client = new Client()
    yield* Effect.addFinalizer(() => Effect.sync(() => client.end()))
    let seen: string | undefined
    const sftp = yield* Effect.async<SFTPWrapper, SftpError>((resume) => {
      let done = false
      const finish = (r: Effect.Effect<SFTPWrapper, SftpError>) => {
        if (done) return
        done = true
        clearTimeout(timer)
        resume(r)
      }
      const timer = setTimeout(() => {
        finish(Effect.fail(new SftpError({ code: "timeout", reason: `no session within ${timeouts.connectMs} ms` })))
        client.end()
      }, timeouts.connectMs)
      client.on("ready", () => {
        client.sftp((err, s) => {
          if (err !== undefined && err !== null) finish(Effect.fail(new SftpError({ code: "sftp_error", reason: `sftp subsystem: ${err.message}` })))
          else finish(Effect.succeed(s))
        })
      })
      client.on("error", (err: Error & { level?: string }) => {
        if (seen !== undefined && seen !== target.fingerprint) {
          finish(Effect.fail(new SftpError({ code: "fingerprint_mismatch", reason: `the host presented ${seen}, not the pinned ${target.fingerprint}` })))
        } else if (err.level === "client-authentication") {
          finish(Effect.fail(new SftpError({ code: "auth_failed", reason: `the server refused user ${target.username}` })))
        } else if (err.level === "client-timeout") {
          finish(Effect.fail(new SftpError({ code: "timeout", reason: `no session within ${timeouts.connectMs} ms` })))
        } else {
          finish(Effect.fail(new SftpError({ code: "connect_failed", reason: err.message })))
        }
      })
      client.on("close", () => finish(Effect.fail(new SftpError({ code: "connect_failed", reason: "the server closed the connection" }))))
      try {
        client.connect({
          host: target.host,
          port: target.port,
          username: target.username,
          ...(target.password !== undefined ? { password: target.password } : {}),
          ...(target.privateKey !== undefined ? { privateKey: target.privateKey } : {}),
          readyTimeout: timeouts.connectMs,
          keepaliveInterval: Math.max(1000, Math.floor(timeouts.readMs / 2)),
          keepaliveCountMax: 2,
          tryKeyboard: false,
          hostVerifier: (key: Buffer) => {
            seen = fingerprintOf(key)
            return seen === target.fingerprint
          }
        })
      } catch (e) {
        finish(Effect.fail(new SftpError({ code: "connect_failed", reason: e instanceof Error ? e.message : "cannot connect" })))
      }
      return Effect.sync(() => {
        clearTimeout(timer)
        client.end()
      })
    })

    /** One request, answered within the read timeout; no answer ends the session. */
    const call = <A>(what: string, start: (done: (err: Error | undefined | null, value: A) => void) => void) =>
      Effect.async<A, SftpError>((resume) => {
        let settled = false
        const timer = setTimeout(() => {
          settled = true
          client.end()
          resume(Effect.fail(new SftpError({ code: "timeout", reason: `${what}: no answer within ${timeouts.readMs} ms` })))
        }, timeouts.readMs)
        try {
          start((err, value) => {
            if (settled) return
            settled = true
            clearTimeout(timer)
            resume(err !== undefined && err !== null ? Effect.fail(lost(err, what)) : Effect.succeed(value))
          })
        } catch (e) {
          settled = true
          clearTimeout(timer)
          resume(Effect.fail(lost(e instanceof Error ? e : undefined, what)))
        }
        return Effect.sync(() => clearTimeout(timer))
      })

    const closeHandle = (handle: Buffer) => call<void>("close", (done) => sftp.close(handle, (err) => done(err, undefined)))

    const list = (dir: string) =>
      Effect.map(
        call<ReadonlyArray<{ filename: string; attrs: { size: number; mtime: number; isFile(): boolean } }>>(`list ${dir}`, (done) =>
          sftp.readdir(dir, (err, entries) => done(err, entries ?? []))
        ),
        (entries) =>
          entries
            .filter((e) => e.attrs.isFile() && !e.filename.startsWith("."))
            .map((e): RemoteFile => ({ name: e.filename, size: e.attrs.size, mtime: e.attrs.mtime }))
      )

    const read = (path: string, maxBytes: number) =>
      Effect.acquireUseRelease(
        call<Buffer>(`open ${path}`, (done) => sftp.open(path, "r", (err, handle) => done(err, handle))),
        (handle) =>
          Effect.gen(function* () {
            const stats = yield* call<{ size: number }>(`stat ${path}`, (done) => sftp.fstat(handle, (err, s) => done(err, s)))
            if (stats.size > maxBytes) return yield* new SftpError({ code: "file_too_large", reason: `${stats.size} bytes, more than ${maxBytes}` })
            const chunks: Array<Buffer> = []
            let position = 0
            for (;;) {
              const buffer = Buffer.alloc(CHUNK)
              const n = yield* call<number>(`read ${path}`, (done) =>
                sftp.read(handle, buffer, 0, CHUNK, position, (err, bytesRead) => done(err, bytesRead))
              )
              if (n === 0) break
              position += n
              if (position > maxBytes) return yield* new SftpError({ code: "file_too_large", reason: `more than ${maxBytes} bytes` })
              chunks.push(buffer.subarray(0, n))
            }
            return new Uint8Array(Buffer.concat(chunks))
          }),
        (handle) => Effect.ignore(closeHandle(handle))
      ).pipe(
        // ssh2 answers a read at the end of a file with an EOF "error".
        Effect.catchIf(
          (e) => e.code === "sftp_error" && /EOF|end of file/i.test(e.reason),
          () => Effect.fail(new SftpError({ code: "sftp_error", reason: `read ${path}: unexpected end` }))
        )
      )

    const replace = (from: string, to: string) =>
      call<void>(`rename ${from}`, (done) => sftp.ext_openssh_rename(from, to, (err) => done(err, undefined))).pipe(
        // A server without OpenSSH's posix-rename: remove the target, then rename.
        Effect.catchIf(
          (e) => e.code === "sftp_error",
          () =>
            Effect.zipRight(
              Effect.ignore(call<void>(`remove ${to}`, (done) => sftp.unlink(to, (err) => done(err, undefined)))),
              call<void>(`rename ${from}`, (done) => sftp.rename(from, to, (err) => done(err, undefined)))
            )
        )
      )

    const writeAtomically = (dir: string, name: string, bytes: Uint8Array) =>
      Effect.gen(function* () {
        const temporary = joinRemote(dir, `.${name}.part`)
        let closed = false
        yield* Effect.acquireUseRelease(
          call<Buffer>(`open ${temporary}`, (done) => sftp.open(temporary, "w", (err, handle) => done(err, handle))),
          (handle) =>
            Effect.gen(function* () {
              const data = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
              for (let at = 0; at < data.length; at += CHUNK) {
                const length = Math.min(CHUNK, data.length - at)
                yield* call<void>(`write ${temporary}`, (done) => sftp.write(handle, data, at, length, at, (err) => done(err, undefined)))
              }
              // A close the server refuses may mean the bytes are not all there: the upload fails.
              closed = true
              yield* closeHandle(handle)
            }),
          (handle) => (closed ? Effect.void : Effect.ignore(closeHandle(handle)))
        )
        yield* replace(temporary, joinRemote(dir, name))
      })

    return { list, read, writeAtomically, move: replace } satisfies SftpSession
  })
