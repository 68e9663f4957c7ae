import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { createHash, randomBytes } from "node:crypto"
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { connect, createServer } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"

/**
 * A real SFTP server for tests: OpenSSH's `sshd` on a free loopback port with `internal-sftp`,
 * a host key and a user key generated for the run, a password user and a key user.
 *
 * As root (CI), two system users are made once (`encounterd-sftp-pw`, `encounterd-sftp-key`, no
 * shell, sftp only) and chrooted into a directory owned by root, with `outbound/`, `inbound/` and
 * `archive/` owned by them: the client sees `/outbound`... The password of the password user is
 * made when the user is, and kept in a root-only file beside (so that test files running at once
 * agree on it). As another user, sshd runs as that user (`UsePAM no`), with no chroot: the key
 * user is the current user, and there is no password user (`password` is undefined).
 */
export interface SftpTestServer {
  readonly host: string
  readonly port: number
  /** OpenSSH's form: `SHA256:` and the unpadded base64 of the host key's SHA-256. */
  readonly fingerprint: string
  readonly keyUser: string
  /** The key user's private key (OpenSSH PEM, no passphrase). */
  readonly privateKey: string
  /** The password user and password; undefined when not running as root. */
  readonly password: { readonly user: string; readonly password: string } | undefined
  /** The folders as the client names them. */
  readonly remote: { readonly outbound: string; readonly inbound: string; readonly archive: string }
  /** The same folders on this machine, for the tests to read and write. */
  readonly local: { readonly outbound: string; readonly inbound: string; readonly archive: string }
  /** Writes a file into the inbound folder as the clearinghouse would (owned by the sftp user). */
  readonly dropInbound: (name: string, body: string | Uint8Array) => void
  /** Kills the per-connection sshd processes (the sessions under way), not the listener. */
  readonly killSessions: () => number
  readonly stop: () => Promise<void>
}

const PW_USER = "encounterd-sftp-pw"
const KEY_USER = "encounterd-sftp-key"
const STATE = "/var/lib/encounterd-test-sftp"

const run = (cmd: string, args: ReadonlyArray<string>, input?: string) => {
  const r = spawnSync(cmd, args, { input, encoding: "utf8" })
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}`)
  return r.stdout
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.listen(0, "127.0.0.1", () => {
      const address = s.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      s.close(() => resolve(port))
    })
    s.on("error", reject)
  })

const uidOf = (user: string): { uid: number; gid: number } | undefined => {
  const r = spawnSync("id", ["-u", user], { encoding: "utf8" })
  if (r.status !== 0) return undefined
  const g = spawnSync("id", ["-g", user], { encoding: "utf8" })
  return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) }
}

/** The two sftp-only users and the password user's password (made once per machine, under a lock). */
const rootUsers = (): { readonly password: string } => {
  mkdirSync(STATE, { recursive: true, mode: 0o700 })
  const lock = join(STATE, "lock")
  for (let i = 0; ; i++) {
    try {
      mkdirSync(lock)
      break
    } catch {
      if (i > 200) rmSync(lock, { recursive: true, force: true })
      Bun.sleepSync(50)
    }
  }
  try {
    const file = join(STATE, "password")
    for (const user of [PW_USER, KEY_USER]) {
      if (uidOf(user) === undefined) run("useradd", ["--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", user])
    }
    // A new account is locked ("!"), which sshd refuses even for a key: "*" takes no password but is not locked.
    run("usermod", ["-p", "*", KEY_USER])
    if (!existsSync(file)) {
      const password = randomBytes(18).toString("base64url")
      run("chpasswd", [], `${PW_USER}:${password}\n`)
      writeFileSync(file, password, { mode: 0o600 })
    }
    return { password: readFileSync(file, "utf8").trim() }
  } finally {
    rmSync(lock, { recursive: true, force: true })
  }
}

export const startSftpServer = async (): Promise<SftpTestServer> => {
  const asRoot = process.getuid?.() === 0
  // A chroot's every component must be root's and writable by no one else: not under /tmp.
  const base = asRoot ? join(STATE, "runs") : tmpdir()
  mkdirSync(base, { recursive: true, mode: 0o755 })
  if (asRoot) chmodSync(STATE, 0o755)
  const dir = mkdtempSync(join(base, "sftp-"))
  chmodSync(dir, 0o755)
  const keys = join(dir, "keys")
  mkdirSync(keys, { mode: 0o700 })
  const hostKey = join(keys, "host_ed25519")
  const userKey = join(keys, "user_ed25519")
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", hostKey])
  run("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", userKey])
  const hostPub = readFileSync(`${hostKey}.pub`, "utf8").trim().split(/\s+/)[1] ?? ""
  const fingerprint = `SHA256:${createHash("sha256").update(Buffer.from(hostPub, "base64")).digest("base64").replace(/=+$/, "")}`

  const password = asRoot ? rootUsers().password : undefined
  const keyUser = asRoot ? KEY_USER : userInfo().username
  // Under a chroot the client sees the jail's root; without one, the absolute folders.
  const jail = join(dir, "jail")
  mkdirSync(jail, { mode: 0o755 })
  const folders = ["outbound", "inbound", "archive"] as const
  const owner = asRoot ? uidOf(KEY_USER) : undefined
  const pwOwner = asRoot ? uidOf(PW_USER) : undefined
  for (const f of folders) {
    const p = join(jail, f)
    mkdirSync(p, { mode: 0o777 })
    chmodSync(p, 0o777)
    if (owner !== undefined) chownSync(p, owner.uid, owner.gid)
  }
  const authorized = join(dir, "authorized_keys")
  writeFileSync(authorized, readFileSync(`${userKey}.pub`, "utf8"), { mode: 0o644 })
  chmodSync(authorized, 0o644)
  const port = await freePort()
  if (asRoot) mkdirSync("/run/sshd", { recursive: true, mode: 0o755 })
  const config = join(dir, "sshd_config")
  writeFileSync(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `PidFile ${join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${authorized}`,
      "StrictModes no",
      "UsePAM no",
      "PermitRootLogin no",
      "KbdInteractiveAuthentication no",
      `PasswordAuthentication ${asRoot ? "yes" : "no"}`,
      "PubkeyAuthentication yes",
      "AllowTcpForwarding no",
      "X11Forwarding no",
      "MaxStartups 50",
      "LogLevel ERROR",
      `AllowUsers ${asRoot ? `${PW_USER} ${KEY_USER}` : keyUser}`,
      "Subsystem sftp internal-sftp",
      "ForceCommand internal-sftp",
      ...(asRoot ? [`ChrootDirectory ${jail}`] : [])
    ].join("\n") + "\n"
  )
  const sshd: ChildProcess = spawn("/usr/sbin/sshd", ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] })
  let stderr = ""
  sshd.stderr?.on("data", (d: Buffer) => {
    stderr += d.toString()
  })
  // Ready once it accepts a connection and answers with its banner.
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: "127.0.0.1", port })
      socket.once("data", () => {
        socket.destroy()
        resolve(true)
      })
      socket.once("error", () => resolve(false))
      socket.once("close", () => resolve(false))
    })
    if (ok) break
    if (i > 100 || sshd.exitCode !== null) throw new Error(`sshd did not start: ${stderr}`)
    await Bun.sleep(50)
  }
  const local = { outbound: join(jail, "outbound"), inbound: join(jail, "inbound"), archive: join(jail, "archive") }
  const remote = asRoot ? { outbound: "/outbound", inbound: "/inbound", archive: "/archive" } : local
  return {
    host: "127.0.0.1",
    port,
    fingerprint,
    keyUser,
    privateKey: readFileSync(userKey, "utf8"),
    password: password === undefined ? undefined : { user: PW_USER, password },
    remote,
    local,
    dropInbound: (name, body) => {
      const p = join(local.inbound, name)
      writeFileSync(p, body)
      if (pwOwner !== undefined) chownSync(p, pwOwner.uid, pwOwner.gid)
    },
    killSessions: () => {
      // Every process under the listener: each connection's monitor and the session it forked.
      const parents = new Map<number, number>()
      for (const entry of readdirSync("/proc")) {
        if (!/^\d+$/.test(entry)) continue
        try {
          const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
          parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]))
        } catch {
          // Gone meanwhile.
        }
      }
      const under = (pid: number): boolean => {
        for (let p = parents.get(pid), hops = 0; p !== undefined && hops < 10; p = parents.get(p), hops++) if (p === sshd.pid) return true
        return false
      }
      let killed = 0
      for (const pid of parents.keys()) {
        if (!under(pid)) continue
        try {
          process.kill(pid, "SIGKILL")
          killed++
        } catch {
          // Gone meanwhile.
        }
      }
      return killed
    },
    stop: async () => {
      if (sshd.exitCode === null) {
        const exited = new Promise((resolve) => sshd.once("exit", resolve))
        sshd.kill("SIGTERM")
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
