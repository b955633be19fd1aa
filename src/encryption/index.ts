// Encryption at rest: the Temporal payload codec, the encrypting job store, and their keys.
export * from './encryption-keys.js';
export { DecryptionError } from './aes-gcm.js';
export { AesGcmPayloadCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from './payload-codec.js';
export { dataConverterFromEnvironment, encryptingDataConverter } from './data-converter.js';
export { EncryptingJobStore } from './encrypting-job-store.js';
