/** ssh2's cipher module (not typed by @types/ssh2): `init` settles once its Poly1305 WebAssembly module is ready. */
declare module "ssh2/lib/protocol/crypto.js" {
  const crypto: { readonly init: Promise<void> }
  export default crypto
}
