#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H
/* OpenSSL's libcrypto: message digests through EVP (the interface OpenSSL 3 keeps). */
#include <openssl/crypto.h>
#include <openssl/evp.h>
#endif
