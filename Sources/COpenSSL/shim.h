#ifndef AUTHLOG_COPENSSL_SHIM_H
#define AUTHLOG_COPENSSL_SHIM_H

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
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

/* HKDF with SHA-256 (RFC 5869) through OpenSSL's EVP_KDF: the OSSL_PARAM array is built here, where its
   string and octet parameters need no casts from Swift. Returns 1 on success. */
static inline int authlog_hkdf_sha256(const unsigned char *secret, size_t secret_length,
                                      const unsigned char *salt, size_t salt_length,
                                      const unsigned char *info, size_t info_length,
                                      unsigned char *out, size_t out_length) {
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    if (kdf == NULL) return 0;
    EVP_KDF_CTX *context = EVP_KDF_CTX_new(kdf);
    EVP_KDF_free(kdf);
    if (context == NULL) return 0;
    OSSL_PARAM parameters[5];
    size_t count = 0;
    parameters[count++] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, (char *)"SHA256", 0);
    parameters[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, (void *)secret, secret_length);
    if (salt_length > 0) {
        parameters[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, (void *)salt, salt_length);
    }
    parameters[count++] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)info, info_length);
    parameters[count] = OSSL_PARAM_construct_end();
    int result = EVP_KDF_derive(context, out, out_length, parameters);
    EVP_KDF_CTX_free(context);
    return result == 1 ? 1 : 0;
}

#endif
