import { hash, verify } from "@node-rs/bcrypt";

/** bcrypt cost: 12 is DESIGN.md's floor (≈ 250 ms per hash on one core). */
export const BCRYPT_COST = 12;

/** Hashes on libuv's thread pool, never on the event loop. */
export function hashPassword(password: string): Promise<string> {
  return hash(password, { cost: BCRYPT_COST });
}

export function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  return verify(password, passwordHash);
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash to verify against when the username does not exist, so that a wrong username costs
 * the same time as a wrong password and does not reveal which users exist.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hash("not a password of anyone", { cost: BCRYPT_COST });
  return dummyHash;
}
