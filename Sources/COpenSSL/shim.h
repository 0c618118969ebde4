#ifndef AUTHLOG_COPENSSL_SHIM_H
#define AUTHLOG_COPENSSL_SHIM_H

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/bio.h>

/* Macros and variadic functions that Swift cannot import, re-exported as functions. */

static inline void authlog_openssl_free(void *pointer) {
    OPENSSL_free(pointer);
}

static inline int authlog_bn_num_bytes(const BIGNUM *bn) {
    return BN_num_bytes(bn);
}

static inline int authlog_bn_num_bits(const BIGNUM *bn) {
    return BN_num_bits(bn);
}

static inline EVP_PKEY *authlog_generate_ec_p256(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
}

static inline EVP_PKEY *authlog_generate_ed25519(void) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
}

static inline EVP_PKEY *authlog_generate_rsa(size_t bits) {
    return EVP_PKEY_Q_keygen(NULL, NULL, "RSA", bits);
}

static inline int authlog_evp_pkey_public_key(void) {
    return EVP_PKEY_PUBLIC_KEY;
}

static inline int authlog_evp_pkey_keypair(void) {
    return EVP_PKEY_KEYPAIR;
}

static inline long authlog_bio_get_mem_data(BIO *bio, char **data) {
    return BIO_get_mem_data(bio, data);
}

#endif
