/** Signs and verifies DSSE envelopes; implemented with node:crypto Ed25519 in src/record. */
export interface Signer {
  /** The key id: sha256 of the public key (SPKI DER), hex. */
  readonly keyId: string;
  sign(data: Uint8Array): Uint8Array;
}

export interface Verifier {
  readonly keyId: string;
  verify(data: Uint8Array, signature: Uint8Array): boolean;
}
