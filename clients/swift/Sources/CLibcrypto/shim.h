#ifndef AUTHLOG_CLIENT_CLIBCRYPTO_SHIM_H
#define AUTHLOG_CLIENT_CLIBCRYPTO_SHIM_H

/* What AuthlogClient's Linux adapters (LibcryptoClientCrypto, LibcryptoP256Key) use of OpenSSL 3's libcrypto:
   SHA-256 and Ed25519 verification through EVP, random bytes, the error queue, and P-256 keys for DPoP proofs
   (generation, import of a private scalar, ES256 signing, ECDSA_SIG for DER to raw r||s). */
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/rand.h>

/* Macros and variadic functions that Swift cannot import, re-exported as functions. */

/* A new P-256 key pair from the default provider (EVP_PKEY_Q_keygen is variadic). */
static inline EVP_PKEY *authlog_client_generate_p256(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

/* EVP_PKEY_KEYPAIR, the selection of EVP_PKEY_fromdata for a private key with its public point. */
static inline int authlog_client_evp_pkey_keypair(void) {
    return EVP_PKEY_KEYPAIR;
}

#endif
