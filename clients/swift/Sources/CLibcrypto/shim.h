#ifndef AUTHLOG_CLIENT_CLIBCRYPTO_SHIM_H
#define AUTHLOG_CLIENT_CLIBCRYPTO_SHIM_H

/* What AuthlogClient's Linux adapter (LibcryptoClientCrypto) uses of OpenSSL 3's libcrypto: SHA-256 and Ed25519
   verification through EVP, random bytes, and the error queue. */
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#endif
