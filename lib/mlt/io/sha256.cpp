#include "mlt/io/sha256.hpp"

#include <openssl/evp.h>

#include "mlt/core/error.hpp"
#include "mlt/io/hex.hpp"

namespace mlt::io {

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(ctx_, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_);
    throw Error("cannot initialise SHA-256", kExitSoftware);
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_); }

void Sha256::update(const char* data, std::size_t n) { EVP_DigestUpdate(ctx_, data, n); }

std::string Sha256::hex_digest() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_, md, &len);
  return lowercase_hex(md, len);
}

std::string sha256_hex(std::string_view data) {
  Sha256 sha;
  sha.update(data.data(), data.size());
  return sha.hex_digest();
}

}  // namespace mlt::io
